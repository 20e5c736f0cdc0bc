// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation
import NIOConcurrencyHelpers
import NIOCore
import Testing

@testable import EventDrivenSwiftNATS

/// What a hostile server found: a connection closed at the worst moment, a flood of `PING`s
/// from a server that does not read, JetStream API answers that contradict each other.
@Suite("NATS client against a hostile server", .serialized, .timeLimit(.minutes(2)))
struct HostileServerTests {
    @Test(
        "X4: a connection the server closes right after the handshake's PONG is replaced: reconnected, flushes answered, keep-alive on"
    )
    func connectionClosedRightAfterTheHandshakeIsReplaced() async throws {
        // The close races the client installing the connection: tried a few times, so that a
        // client that misses the close (stuck connected on a dead channel) is caught.
        for attempt in 1...3 {
            // Connection 1 answers the handshake's PING and closes at once; connection 2 stays.
            let server = try await ScriptedNATSServer(closesAfter: { line, connection in
                connection == 1 && line == "PING"
            })
            var configuration = try NATSClientConfiguration(server: server.url)
            configuration.reconnect.initialDelay = .milliseconds(1)
            configuration.pingInterval = .milliseconds(100)
            let client = NATSClient(configuration: configuration, logger: quietLogger)
            try await client.connect()
            let replaced = await poll(timeout: .seconds(10)) {
                client.statistics.connects == 2 && server.connectionCount == 2 && client.isConnected
            }
            #expect(replaced, "attempt \(attempt): \(client.statistics)")
            #expect(server.isClosed(1))
            // A bounded wait: a client stuck on the dead channel waits for ever for the PONG.
            let flushed = NIOLockedValueBox(false)
            let flush = Task {
                try await client.flush()
                flushed.withLockedValue { $0 = true }
            }
            #expect(await poll(timeout: .seconds(10)) { flushed.withLockedValue { $0 } }, "attempt \(attempt)")
            flush.cancel()
            #expect(client.statistics.disconnects == 1)
            await client.close()
            await server.shutdown()
        }
    }

    /// How many 6-byte `PONG`s a client's socket can hold at most: its send buffer's largest
    /// size (Linux: the last number of `tcp_wmem`; else 4 MiB), over 6.
    static var pongsTheKernelTakesAtMost: Int {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/tcp_wmem", encoding: .utf8)) ?? ""
        let largest = text.split(whereSeparator: \.isWhitespace).last.flatMap { Int($0) } ?? 4 * 1024 * 1024
        return min(largest, 64 * 1024 * 1024) / 6
    }

    @Test(
        "X4: a server that floods PINGs and does not read gets one PONG at a time, not one per PING: what waits to be written stays bounded"
    )
    func pingFloodFromAServerThatDoesNotRead() async throws {
        let server = try await ScriptedNATSServer(receiveBuffer: 4096)
        defer { Task { await server.shutdown() } }
        let client = NATSClient(configuration: try NATSClientConfiguration(server: server.url), logger: quietLogger)
        try await client.connect()
        let done = NIOLockedValueBox(false)
        let subscription = try client.subscribe(to: "done") { _ in done.withLockedValue { $0 = true } }
        try await client.flush()
        try await server.setReading(false, on: 1)
        // Far more PONGs than the sockets' buffers take (the server's is small; the client's
        // may grow to tcp_wmem's maximum); the message after them says that the client has read
        // every PING.
        let pings = Self.pongsTheKernelTakesAtMost + 400_000
        server.send(String(repeating: "PING\r\n", count: pings) + "MSG done \(subscription.id) 0\r\n\r\n", on: 1)
        #expect(await poll(timeout: .seconds(60)) { done.withLockedValue { $0 } })
        try await server.setReading(true, on: 1)
        // Answered once the server has read every PONG written before this PING.
        try await client.flush()
        let pongs = server.lines(of: 1).count { $0 == "PONG" }
        #expect(pongs >= 1, "the PINGs were answered")
        #expect(pongs < pings - 200_000, "\(pongs) PONGs for \(pings) PINGs")
        #expect(client.isConnected)
        await client.close()
        await server.shutdown()
    }
}
