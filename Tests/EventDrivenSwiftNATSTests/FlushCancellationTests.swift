// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import Synchronization
import Testing

@testable import EventDrivenSwiftNATS

/// `flush()` and `close()` against a server that has stopped answering `PING`s. Before,
/// `flush()` ignored cancellation, so `close()`, which gives its flush a second, waited until
/// the keep-alive declared the connection stale (60 s with a 20 s interval; here, with a
/// ten-minute interval, far longer than these tests' bounds).
@Suite("NATS client: flush is cancellable, close is bounded", .timeLimit(.minutes(1)))
struct FlushCancellationTests {
    /// A guard against hanging, never a measurement: the documented bound is a second.
    private static let bound: Duration = .seconds(30)

    private func silentServerClient() async throws -> (FakeNATSServer, NATSClient) {
        // Answers the handshake's PING only: every later PING waits for good.
        let server = try await FakeNATSServer { _ in false }
        var configuration = try NATSClientConfiguration(server: server.url)
        configuration.name = server.clientName
        configuration.pingInterval = .seconds(600)
        let client = NATSClient(configuration: configuration, logger: quietLogger)
        try await client.connect()
        return (server, client)
    }

    @Test("X2: close() returns within its flush bound when the server stops answering")
    func closeIsBounded() async throws {
        let (server, client) = try await silentServerClient()
        let closed = Finished()
        Task {
            await client.close()
            closed.finish()
        }
        #expect(await closed.wait(within: Self.bound), "close() waited for a PONG that never comes")
        await server.shutdown()
    }

    @Test("X2: a cancelled flush() throws CancellationError instead of waiting for its PONG")
    func flushIsCancellable() async throws {
        let (server, client) = try await silentServerClient()
        let outcome = Finished()
        let flush = Task { await Self.flush(client, into: outcome) }
        // The flush's PING reaches the server: it is waiting for the PONG.
        #expect(await server.wait(timeout: Self.bound) { ($0.first?.pings ?? 0) >= 2 })
        flush.cancel()
        #expect(await outcome.wait(within: Self.bound))
        #expect(outcome.value == "cancelled")
        // The client goes on: a flush cancelled before it starts throws at once too.
        let early = Finished()
        Task {
            withUnsafeCurrentTask { $0?.cancel() }
            await Self.flush(client, into: early)
        }
        #expect(await early.wait(within: Self.bound))
        #expect(early.value == "cancelled")
        #expect(client.isConnected)
        await client.close()
        await server.shutdown()
    }

    /// Flushes, and finishes `outcome` with how the flush ended.
    private static func flush(_ client: NATSClient, into outcome: Finished) async {
        do {
            try await client.flush()
            outcome.finish("returned")
        } catch is CancellationError {
            outcome.finish("cancelled")
        } catch {
            outcome.finish("\(error)")
        }
    }

    /// Set once, by another task; waited for on a queue of its own, so that a wait never holds
    /// one of the cooperative pool's threads.
    private final class Finished: Sendable {
        private let semaphore = DispatchSemaphore(value: 0)
        private let result = Mutex<String?>(nil)

        func finish(_ value: String = "") {
            result.withLock { $0 = value }
            semaphore.signal()
        }

        var value: String? { result.withLock { $0 } }

        func wait(within bound: Duration) async -> Bool {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                DispatchQueue(label: "flush-test-wait").async {
                    let seconds = Int(bound.components.seconds)
                    continuation.resume(returning: self.semaphore.wait(timeout: .now() + .seconds(seconds)) == .success)
                }
            }
        }
    }
}
