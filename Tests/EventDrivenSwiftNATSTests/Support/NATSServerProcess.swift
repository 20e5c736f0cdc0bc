// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation
import NIOConcurrencyHelpers

/// A `nats-server -js` of the test's own on a free loopback port, with a temporary store directory;
/// restartable on the same port and store.
final class NATSServerProcess: Sendable {
    let storeDirectory: URL
    private let running = NIOLockedValueBox<(port: Int, child: ChildProcess?)>((0, nil))
    private let extraArguments: [String]
    private let jetStream: Bool

    var port: Int { running.withLockedValue { $0.port } }
    private var child: ChildProcess? { running.withLockedValue { $0.child } }

    init(arguments: [String] = [], jetStream: Bool = true) async throws {
        self.jetStream = jetStream
        storeDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("eds-nats-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: storeDirectory, withIntermediateDirectories: true)
        extraArguments = arguments
        try await start(port: -1)
    }

    var url: String { "nats://127.0.0.1:\(port)" }

    /// Starts the server (on a random free port the first time) and waits until it is ready.
    func start(port requested: Int? = nil) async throws {
        let port = requested ?? self.port
        let executable = try Self.serverExecutable()
        let child = try ChildProcess(
            executable,
            (jetStream ? ["-js", "-sd", storeDirectory.path] : []) + ["-a", "127.0.0.1", "-p", String(port)]
                + extraArguments)
        running.withLockedValue { $0.child = child }
        let ready = await child.waitForStderr(timeout: .seconds(20)) { lines in
            lines.contains { $0.contains("Server is ready") }
        }
        guard ready else { throw ServerError.notReady(child.stderr.joined(separator: "\n")) }
        if self.port == 0 {
            let line = child.stderr.first { $0.contains("Listening for client connections on") } ?? ""
            let found =
                Int(line.split(separator: ":").last.map { String($0).trimmingCharacters(in: .whitespaces) } ?? "") ?? 0
            running.withLockedValue { $0.port = found }
        }
    }

    /// Stops it: gracefully (SIGTERM), or at once (SIGKILL).
    func stop(immediately: Bool = false) async {
        guard let child else { return }
        if immediately { child.kill9() } else { child.terminate() }
        _ = await child.waitForExit(timeout: .seconds(10))
        running.withLockedValue { $0.child = nil }
    }

    func shutdown() async {
        await stop()
        try? FileManager.default.removeItem(at: storeDirectory)
    }

    static func serverExecutable() throws -> URL {
        for directory in ["/usr/bin", "/usr/local/bin", "/usr/sbin", "/opt/homebrew/bin"] {
            let url = URL(fileURLWithPath: directory).appendingPathComponent("nats-server")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw ServerError.notInstalled
    }

    enum ServerError: Error {
        case notInstalled
        case notReady(String)
    }
}

/// Runs `body` with a fresh server, and stops it afterwards.
func withNATSServer<T>(
    arguments: [String] = [], jetStream: Bool = true, _ body: (NATSServerProcess) async throws -> T
) async throws -> T {
    let server = try await NATSServerProcess(arguments: arguments, jetStream: jetStream)
    do {
        let result = try await body(server)
        await server.shutdown()
        return result
    } catch {
        await server.shutdown()
        throw error
    }
}
