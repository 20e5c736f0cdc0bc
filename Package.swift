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
        .library(name: "EventDrivenSwiftObservability", targets: ["EventDrivenSwiftObservability"]),
        .library(name: "EventDrivenSwiftServiceLifecycle", targets: ["EventDrivenSwiftServiceLifecycle"]),
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
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        // Ed25519 for the NATS bridge's NKEY and JWT logins (the NATS target only).
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        .target(name: "ThreadSafeSwift"),
        // Thread-local words for the dispatch path, which Swift cannot declare, and the system calls of its
        // priority-inheriting lock on Linux (internal to the core).
        .target(name: "CEventDrivenSwiftShims"),
        .target(name: "Observable", dependencies: ["ThreadSafeSwift"]),
        .target(
            name: "EventDrivenSwift",
            dependencies: [
                "ThreadSafeSwift",
                "Observable",
                "CEventDrivenSwiftShims",
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
                // ServiceContext only (swift-distributed-tracing's API module, no tracer), so
                // the context current at dispatch is current around the handler (SPEC M4).
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
            ]
        ),
        // Metrics and tracing built on the bus's interceptors (SPEC M1, M4): a product of its own,
        // so the core needs neither swift-metrics nor a tracer.
        .target(
            name: "EventDrivenSwiftObservability",
            dependencies: [
                "EventDrivenSwift",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        .testTarget(
            name: "EventDrivenSwiftObservabilityTests",
            dependencies: [
                "EventDrivenSwiftObservability",
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ]
        ),
        // A swift-service-lifecycle `Service` that runs a bus and stops it gracefully on SIGTERM.
        .target(
            name: "EventDrivenSwiftServiceLifecycle",
            dependencies: [
                "EventDrivenSwift", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "EventDrivenSwiftServiceLifecycleTests",
            dependencies: [
                "EventDrivenSwiftServiceLifecycle",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "TemperatureDemo",
            dependencies: ["EventDrivenSwift", .product(name: "Logging", package: "swift-log")]),
        // The test kit for users' own tests (SPEC K1): no test framework at link time.
        .target(name: "EventDrivenSwiftTesting", dependencies: ["EventDrivenSwift"]),
        .testTarget(
            name: "EventDrivenSwiftTestingTests",
            dependencies: [
                "EventDrivenSwiftTesting", .product(name: "Instrumentation", package: "swift-distributed-tracing"),
            ]),
        .testTarget(
            name: "EventDrivenSwiftTests",
            dependencies: [
                "EventDrivenSwift", "CTestProcessSettings", .product(name: "Logging", package: "swift-log"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
            ]),
        // Loaded with the test executable: how many tests Swift Testing runs at once (see its source).
        .target(name: "CTestProcessSettings", path: "Tests/CTestProcessSettings"),
        // A user's module: the public API only, Swift 6 mode, no warnings (SPEC A4).
        .testTarget(
            name: "UserModuleTests", dependencies: ["EventDrivenSwift"], swiftSettings: [.swiftLanguageMode(.v6)]),
        // A user's module built with Xcode 26's defaults for new app projects (issue 25): main-actor
        // default isolation and the two upcoming features; the README's forms, no warnings.
        .testTarget(
            name: "XcodeDefaultsTests", dependencies: ["EventDrivenSwift"],
            swiftSettings: [
                .defaultIsolation(MainActor.self),
                .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
                .enableUpcomingFeature("InferIsolatedConformances"),
            ]),
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
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The program `.ci/dispatch-path` profiles to count the files and functions one event runs through.
        .executableTarget(name: "DispatchPathProbe", dependencies: ["EventDrivenSwift"], path: "Probes/DispatchPath"),
        .executableTarget(name: "NATSBridgeDemo", dependencies: ["EventDrivenSwiftNATS"]),
        // The libFuzzer target of the NATS protocol parser (its header says how to run it).
        .executableTarget(name: "NATSParserFuzzer", dependencies: ["EventDrivenSwiftNATS"]),
        .testTarget(
            name: "EventDrivenSwiftNATSTests",
            dependencies: [
                "EventDrivenSwiftNATS",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
