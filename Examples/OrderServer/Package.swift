// swift-tools-version: 6.2
import Foundation
import PackageDescription

// A path dependency's identity is its folder's name, which depends on where the repository was cloned.
let library = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().lastPathComponent

// The example server: a package of its own, so the library's users never pull in Hummingbird.
let package = Package(
    name: "OrderServer",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        .executableTarget(
            name: "OrderServer",
            dependencies: [
                .product(name: "EventDrivenSwift", package: library),
                .product(name: "EventDrivenSwiftObservability", package: library),
                .product(name: "EventDrivenSwiftServiceLifecycle", package: library),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
