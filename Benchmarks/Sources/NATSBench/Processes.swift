// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
    import Glibc
#endif

/// A child process whose output lines are collected.
final class Child: Sendable {
    let process: Process
    private let lines = NIOLockedValueBox<(out: [String], err: [String], partial: [String: String])>(([], [], [:]))

    init(_ executable: URL, _ arguments: [String]) throws {
        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        collect(out, "out")
        collect(err, "err")
        try process.run()
    }

    var out: [String] { lines.withLockedValue { $0.out } }
    var err: [String] { lines.withLockedValue { $0.err } }

    private func collect(_ pipe: Pipe, _ stream: String) {
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self, !data.isEmpty else {
                handle.readabilityHandler = nil
                return
            }
            self.lines.withLockedValue { lines in
                var text = (lines.partial[stream] ?? "") + String(decoding: data, as: UTF8.self)
                while let newline = text.firstIndex(of: "\n") {
                    let line = String(text[..<newline])
                    if stream == "out" { lines.out.append(line) } else { lines.err.append(line) }
                    text = String(text[text.index(after: newline)...])
                }
                lines.partial[stream] = text
            }
        }
    }

    /// Polls (bounded) until `condition` holds on the output lines.
    func wait(timeout: Duration, on stream: String = "out", _ condition: ([String]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(stream == "out" ? out : err) { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return false
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}

/// A `nats-server -js` on a free port with a fresh store directory.
final class Server: Sendable {
    let child: Child
    let port: Int
    let store: URL

    init() async throws {
        store = FileManager.default.temporaryDirectory.appendingPathComponent("eds-natsbench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
        let executable = ["/usr/sbin/nats-server", "/usr/bin/nats-server", "/usr/local/bin/nats-server"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let executable else { throw BenchError.serverNotReady }
        child = try Child(
            URL(fileURLWithPath: executable), ["-js", "-sd", store.path, "-a", "127.0.0.1", "-p", "-1"])
        guard await child.wait(timeout: .seconds(20), on: "err", { $0.contains { $0.contains("Server is ready") } })
        else { throw BenchError.serverNotReady }
        let line = child.err.first { $0.contains("Listening for client connections on") } ?? ""
        port = Int(line.split(separator: ":").last.map(String.init) ?? "") ?? 0
    }

    var url: String { "nats://127.0.0.1:\(port)" }

    func stop() {
        child.stop()
        try? FileManager.default.removeItem(at: store)
    }
}

/// Three `nats-server -js` on loopback in one cluster (`--cluster_name`, `--routes`), each with a
/// store of its own: the stream is made with three replicas.
final class Cluster: Sendable {
    let children: [Child]
    let ports: [Int]
    let stores: [URL]

    init() async throws {
        let executable = ["/usr/sbin/nats-server", "/usr/bin/nats-server", "/usr/local/bin/nats-server"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let executable else { throw BenchError.serverNotReady }
        let ports = try (0..<3).map { _ in try freePort() }
        let routes = try (0..<3).map { _ in try freePort() }
        var children: [Child] = []
        var stores: [URL] = []
        for index in 0..<3 {
            let store = FileManager.default.temporaryDirectory.appendingPathComponent(
                "eds-natsbench-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
            stores.append(store)
            let others = (0..<3).filter { $0 != index }.map { "nats://127.0.0.1:\(routes[$0])" }
            children.append(
                try Child(
                    URL(fileURLWithPath: executable),
                    [
                        "-js", "-sd", store.path, "-a", "127.0.0.1", "-p", String(ports[index]), "--server_name",
                        "n\(index + 1)", "--cluster_name", "bench", "--cluster", "nats://127.0.0.1:\(routes[index])",
                        "--routes", others.joined(separator: ","),
                    ]))
        }
        for child in children {
            guard await child.wait(timeout: .seconds(30), on: "err", { $0.contains { $0.contains("Server is ready") } })
            else { throw BenchError.serverNotReady }
        }
        // The JetStream meta leader is elected once some node reports it.
        _ = await children[0].wait(timeout: .seconds(30), on: "err") { lines in
            lines.contains {
                $0.contains("JetStream cluster new metadata leader")
                    || $0.contains("Self is new JetStream cluster metadata leader")
            }
        }
        self.children = children
        self.ports = ports
        self.stores = stores
    }

    var url: String { ports.map { "nats://127.0.0.1:\($0)" }.joined(separator: ",") }

    func stop() {
        for child in children { child.stop() }
        for store in stores { try? FileManager.default.removeItem(at: store) }
    }
}

/// A loopback port nothing listens on now.
func freePort() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw BenchError.serverNotReady }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
    }
    guard bound == 0 else { throw BenchError.serverNotReady }
    let named = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    guard named == 0 else { throw BenchError.serverNotReady }
    return Int(UInt16(bigEndian: address.sin_port))
}

enum BenchError: Error {
    case serverNotReady
    case childFailed(String)
}
