// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "EventDrivenSwift",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "EventDrivenSwift", targets: ["EventDrivenSwift"]),
        .library(name: "ThreadSafeSwift", targets: ["ThreadSafeSwift"]),
        .library(name: "Observable", targets: ["Observable"]),
        .library(name: "EventDrivenSwiftTesting", targets: ["EventDrivenSwiftTesting"]),
        .executable(name: "TemperatureDemo", targets: ["TemperatureDemo"]),
        .library(name: "EventDrivenSwiftNATS", targets: ["EventDrivenSwiftNATS"]),
        .executable(name: "NATSBridgeDemo", targets: ["NATSBridgeDemo"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        .target(name: "ThreadSafeSwift"),
        .target(name: "Observable", dependencies: ["ThreadSafeSwift"]),
        .target(
            name: "EventDrivenSwift",
            dependencies: [
                "ThreadSafeSwift",
                "Observable",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "TemperatureDemo",
            dependencies: ["EventDrivenSwift", .product(name: "Logging", package: "swift-log")]),
        // The test kit for users' own tests (SPEC K1): no test framework at link time.
        .target(name: "EventDrivenSwiftTesting", dependencies: ["EventDrivenSwift"]),
        .testTarget(name: "EventDrivenSwiftTestingTests", dependencies: ["EventDrivenSwiftTesting"]),
        .testTarget(
            name: "EventDrivenSwiftTests",
            dependencies: ["EventDrivenSwift", .product(name: "Logging", package: "swift-log")]),
        // A user's module: the public API only, Swift 6 mode, no warnings (SPEC A4).
        .testTarget(
            name: "UserModuleTests", dependencies: ["EventDrivenSwift"], swiftSettings: [.swiftLanguageMode(.v6)]),
        // The NATS JetStream bridge (SPEC X1, X2): a product of its own, so the core stays free of NIO.
        .target(
            name: "EventDrivenSwiftNATS",
            dependencies: [
                "EventDrivenSwift",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(name: "NATSBridgeDemo", dependencies: ["EventDrivenSwiftNATS"]),
        .testTarget(
            name: "EventDrivenSwiftNATSTests",
            dependencies: [
                "EventDrivenSwiftNATS",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
