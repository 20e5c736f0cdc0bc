// swift-tools-version: 6.1
import Foundation
import PackageDescription

// A path dependency's identity is its folder's name, which depends on where the repository was cloned.
let rootIdentity = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .lastPathComponent

// The benchmark package: its own package so that library users never pull in its dependencies.
let package = Package(
    name: "EventDrivenSwiftBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        .executableTarget(
            name: "EDSBench",
            dependencies: [
                .product(name: "EventDrivenSwift", package: rootIdentity),
                .product(name: "EventDrivenSwiftObservability", package: rootIdentity),
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "OpenCombineDispatch", package: "OpenCombine"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]
        ),
        // The NATS bridge: producer → worker through JetStream, and the raw NATS core baseline.
        .executableTarget(
            name: "NATSBench",
            dependencies: [
                .product(name: "EventDrivenSwift", package: rootIdentity),
                .product(name: "EventDrivenSwiftNATS", package: rootIdentity),
            ]
        ),
        // The client side of tools/nats-hostile: the NATS client and the bridge against a fake
        // server that misbehaves on purpose.
        .executableTarget(
            name: "NATSHostileProbe",
            dependencies: [
                .product(name: "EventDrivenSwift", package: rootIdentity),
                .product(name: "EventDrivenSwiftNATS", package: rootIdentity),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
