import Foundation
import NIOConcurrencyHelpers

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

enum BenchError: Error {
    case serverNotReady
    case childFailed(String)
}
