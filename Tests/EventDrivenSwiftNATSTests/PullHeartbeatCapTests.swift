// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation
import NIOConcurrencyHelpers
import NIOCore
import Testing

@testable import EventDrivenSwiftNATS

/// A pull request's idle heartbeats come every quarter of its expiry, but at most every 5 s:
/// before, a fetch of 10 minutes asked for one every 150 s, so a silent server was noticed only
/// after two of them were missed, 5 minutes in.
extension PullRequestTests {
    @Test(
        "X3: a pull request asks for idle heartbeats every quarter of its expiry, at most every 5 s",
        arguments: [(1, 250_000_000), (8, 2_000_000_000), (20, 5_000_000_000), (600, 5_000_000_000)])
    func heartbeatIsCapped(expirySeconds: Int, heartbeat: Int) async throws {
        // Each request is answered "no messages" (404) once its body came, which ends the fetch.
        let sids = NIOLockedValueBox<[String: String]>([:])
        let replyTo = NIOLockedValueBox<String?>(nil)
        let server = try await ScriptedNATSServer(answer: { line, _ in
            let words = line.split(separator: " ").map(String.init)
            if line == "PING" { return "PONG\r\n" }
            if words.first == "SUB", words.count >= 3 { sids.withLockedValue { $0[words[1]] = words.last! } }
            if words.first == "PUB", words.count == 4, words[1].contains("MSG.NEXT") {
                replyTo.withLockedValue { $0 = words[2] }
            }
            if line.hasPrefix("{"), let inbox = replyTo.withLockedValue({ $0 }),
                let sid = sids.withLockedValue({ $0[inbox] })
            {
                let block = "NATS/1.0 404 No Messages\r\n\r\n"
                return "HMSG \(inbox) \(sid) \(block.utf8.count) \(block.utf8.count)\r\n\(block)\r\n"
            }
            return nil
        })
        defer { Task { await server.shutdown() } }
        let (client, subscription) = try await pullSubscription(scriptedBy: server)
        try await client.flush()
        let fetched = await outcome(within: .seconds(10)) {
            try await subscription.fetch(batch: 1, expires: .seconds(expirySeconds))
        }
        #expect("\(fetched)" == "returned")
        let bodies = server.lines(of: 1).filter { $0.hasPrefix("{") }
        #expect(
            bodies == ["{\"batch\":1,\"expires\":\(expirySeconds * 1_000_000_000),\"idle_heartbeat\":\(heartbeat)}"],
            "\(bodies)")
        subscription.finish()
        await client.close()
    }

    @Test(
        "X3: a 10-minute pull request to a server gone silent ends as lost after two missed 5 s heartbeats, not minutes"
    )
    func longRequestToSilentServer() async throws {
        let server = try await ScriptedNATSServer()
        defer { Task { await server.shutdown() } }
        let (client, subscription) = try await pullSubscription(scriptedBy: server)
        let started = ContinuousClock.now
        // Two heartbeats (5 s) missed: lost after 10 to 15 s without a word (the watchdog looks
        // every 5 s), with room for a loaded machine; before the cap, after 300 s.
        let fetched = await outcome(within: .seconds(30)) {
            try await subscription.fetch(batch: 10, expires: .seconds(600))
        }
        let elapsed = ContinuousClock.now - started
        #expect("\(fetched)" == "returned" && subscription.missedHeartbeats == 1, "\(fetched) after \(elapsed)")
        #expect(elapsed >= .seconds(10) && elapsed < .seconds(20), "\(elapsed)")
        subscription.finish()
        await client.close()
    }
}

extension NATSServerTests {
    /// A 10-minute request asks for heartbeats every 5 s (the cap); one under 2 ms asks for none
    /// (its 1 ms floor, above half the expiry, had the server refuse every such request).
    @Test(
        "X3: nats-server takes a pull request of 10 minutes, and one under 2 ms: the stored message comes at once",
        arguments: [600_000_000_000, 1_000_000, 1_500_000]
    )
    func requestAccepted(expiryNanoseconds: Int64) async throws {
        try await withNATSServer { server in
            let client = try await connectedClient(server)
            let subscription = try await pullSubscription(
                JetStream(client: client), stream: "PULL", prefix: "pull", durable: "pull", messages: ["1"])
            // A request the server refused (heartbeat above half the expiry) would bring a 400, no
            // message, every time. One it took may still expire before the server gets to it (a
            // millisecond, on a loaded machine: one ThreadSanitizer run): asked again, up to 20 times.
            var fetched = ""
            for _ in 0..<20 where subscription.queued == 0 {
                let attempt = await outcome(within: .seconds(10)) {
                    try await subscription.fetch(batch: 1, expires: .nanoseconds(expiryNanoseconds))
                }
                fetched = "\(attempt)"
                guard fetched == "returned" else { break }
            }
            #expect(fetched == "returned" && subscription.queued == 1, "\(fetched)")
            if subscription.queued == 1 {
                #expect(await subscription.nextMessages().map(\.streamSequence) == [1])
            }
            subscription.finish()
            await client.close()
        }
    }
}
