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
}
