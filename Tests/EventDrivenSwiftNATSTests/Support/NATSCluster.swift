// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

@testable import EventDrivenSwiftNATS

#if canImport(Glibc)
    import Glibc
#endif

/// A JetStream cluster of three `nats-server`s of the test's own on loopback (`--cluster_name`,
/// `--cluster`, `--routes`, `--server_name`, a store each), whose nodes can be killed, put in
/// lame-duck mode and started again on the same ports and stores.
final class NATSCluster: Sendable {
    struct Node: Sendable {
        var name: String
        var port: Int
        var clusterPort: Int
        var store: URL
    }

    let nodes: [Node]
    private let directory: URL
    private let config: URL
    private let children = NIOLockedValueBox<[String: ChildProcess]>([:])

    init(size: Int = 3) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("eds-cluster-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        config = directory.appendingPathComponent("node.conf")
        // Lame duck: stop accepting at once, close clients over the shortest duration allowed (30 s).
        try Data("lame_duck_duration: \"30s\"\nlame_duck_grace_period: \"0s\"\n".utf8).write(to: config)
        var nodes: [Node] = []
        for index in 1...size {
            nodes.append(
                Node(
                    name: "n\(index)", port: try Self.freePort(), clusterPort: try Self.freePort(),
                    store: directory.appendingPathComponent("n\(index)")))
        }
        self.nodes = nodes
        for node in nodes { try await start(node.name) }
        try await waitForJetStream()
    }

    /// Every node's client URL, comma-separated, as `--server` takes them.
    var urls: String { nodes.map { "nats://127.0.0.1:\($0.port)" }.joined(separator: ",") }

    func start(_ name: String) async throws {
        let node = nodes.first { $0.name == name }!
        let routes = nodes.filter { $0.name != name }.map { "nats://127.0.0.1:\($0.clusterPort)" }
        let child = try ChildProcess(
            try NATSServerProcess.serverExecutable(),
            [
                "-c", config.path, "-js", "-sd", node.store.path, "-a", "127.0.0.1", "-p", String(node.port),
                "--server_name", node.name, "--cluster_name", "eds", "--cluster",
                "nats://127.0.0.1:\(node.clusterPort)", "--routes", routes.joined(separator: ","),
            ])
        children.withLockedValue { $0[name] = child }
        let ready = await child.waitForStderr(timeout: .seconds(30)) { $0.contains { $0.contains("Server is ready") } }
        guard ready else { throw NATSServerProcess.ServerError.notReady(child.stderr.joined(separator: "\n")) }
    }

    func kill(_ name: String) async {
        guard let child = children.withLockedValue({ $0.removeValue(forKey: name) }) else { return }
        child.kill9()
        _ = await child.waitForExit(timeout: .seconds(10))
    }

    /// `nats-server --signal ldm=<pid>`: the node stops taking clients and closes its own over
    /// its lame-duck duration, then exits.
    func lameDuck(_ name: String) async throws {
        guard let child = children.withLockedValue({ $0[name] }) else { return }
        let signal = try ChildProcess(try NATSServerProcess.serverExecutable(), ["--signal", "ldm=\(child.pid)"])
        _ = await signal.waitForExit(timeout: .seconds(10))
        _ = await child.waitForExit(timeout: .seconds(45))
        children.withLockedValue { _ = $0.removeValue(forKey: name) }
    }

    /// The name of the node that leads `stream`, asked of any node.
    func leader(of stream: String, client: NATSClient) async throws -> String? {
        try await info(of: stream, client: client).cluster?.leader
    }

    /// How many servers keep a copy of `stream`, asked of any node.
    func replicas(of stream: String, client: NATSClient) async throws -> Int {
        try await info(of: stream, client: client).config.replicas
    }

    private struct StreamInfo: Decodable {
        struct Config: Decodable {
            var replicas: Int
            enum CodingKeys: String, CodingKey { case replicas = "num_replicas" }
        }
        struct Cluster: Decodable { var leader: String? }
        var config: Config
        var cluster: Cluster?
    }

    private func info(of stream: String, client: NATSClient) async throws -> StreamInfo {
        let reply = try await client.request(ByteBuffer(), to: "$JS.API.STREAM.INFO.\(stream)")
        return try JSONDecoder().decode(StreamInfo.self, from: Data(reply.bytes))
    }

    func shutdown() async {
        let all = children.withLockedValue { children in
            defer { children = [:] }
            return Array(children.values)
        }
        for child in all {
            child.terminate()
            _ = await child.waitForExit(timeout: .seconds(10))
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Waits until the cluster's JetStream can place a stream on every node: its meta leader is
    /// elected and knows all the peers. `$JS.API.INFO` answers as soon as there is a leader, before
    /// the peers are known; a stream of `nodes.count` replicas created then fails with 10005 ("no
    /// suitable peers for placement"). So the wait creates such a stream, and deletes it.
    private func waitForJetStream() async throws {
        let client = NATSClient(configuration: try NATSClientConfiguration(server: urls), logger: quietLogger)
        try await client.connect()
        defer { Task { await client.close() } }
        let probe = ByteBuffer(
            string: "{\"name\":\"READY\",\"subjects\":[\"eds.cluster.ready\"],\"num_replicas\":\(nodes.count)}")
        let deadline = ContinuousClock.now + .seconds(60)
        var last = ""
        while ContinuousClock.now < deadline {
            if let reply = try? await client.request(probe, to: "$JS.API.STREAM.CREATE.READY", timeout: .seconds(2)) {
                last = reply.string
                if !last.contains("\"error\"") {
                    _ = try? await client.request(ByteBuffer(), to: "$JS.API.STREAM.DELETE.READY", timeout: .seconds(5))
                    return
                }
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw NATSServerProcess.ServerError.notReady("JetStream cannot place a stream on every node: \(last)")
    }

    /// A loopback port nothing listens on now.
    static func freePort() throws -> Int {
        let group = MultiThreadedEventLoopGroup.singleton
        let channel = try ServerBootstrap(group: group).bind(host: "127.0.0.1", port: 0).wait()
        let port = channel.localAddress?.port ?? 0
        try channel.close().wait()
        return port
    }
}
