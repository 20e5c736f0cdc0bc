// swift-tools-version: 6.1
import Foundation
import PackageDescription

// A user's module that must NOT compile: every registration below races on unprotected state,
// and Swift 6 must say so (SPEC A4). `.ci/run` builds it and expects one concurrency error per
// line marked `// RACE`.
let rootIdentity = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "DataRaceProbe",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "../..")],
    targets: [
        .target(
            name: "DataRaceProbe",
            dependencies: [.product(name: "EventDrivenSwift", package: rootIdentity)]
        )
    ],
    swiftLanguageModes: [.v6]
)
