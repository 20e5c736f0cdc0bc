// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation
import Testing

/// Child processes of `NATSBridgeDemo` against one server (SPEC X2).
extension NATSServerTests {
    @Test("X2: three workers share 100,000 events: none lost, none handled twice")
    func threeWorkersShareOneHundredThousand() async throws {
        try await withNATSServer { server in
            let count = 100_000
            let workers = try await startWorkers(3, server: server, ["--group", "workers"])
            let started = ContinuousClock.now
            let (summary, _) = try await produce(count, server: server)
            #expect(summary.acknowledged == count && summary.unacknowledged == 0)
            let allHandled = await poll(timeout: .seconds(120)) { workers.map(\.handledCount).reduce(0, +) >= count }
            let elapsed = ContinuousClock.now - started
            for worker in workers { worker.terminate() }
            for worker in workers { #expect(await worker.waitForExit(timeout: .seconds(10)) == 0) }
            let ids = workers.flatMap(\.handledOrderIDs)
            #expect(allHandled)
            #expect(ids.count == count, "handled \(ids.count) for \(count) events")
            #expect(Set(ids) == Set(1...count))
            #expect(workers.allSatisfy { $0.handledCount > 0 })
            print(
                "X2 100k: produced in \(summary.seconds ?? 0) s, all handled \(elapsed) after the producer started; "
                    + "per worker \(workers.map(\.handledCount))")
        }
    }

    @Test("X2: kill -9 of a worker mid-stream loses nothing: its unacknowledged events go to the others")
    func killedWorkerLosesNothing() async throws {
        try await withNATSServer { server in
            let count = 20_000
            // A 1 s ack wait, so that the victim's unacknowledged events reach the others soon;
            // 64 held, so that a worker gets through a fetch well within it, under
            // ThreadSanitizer too (with 2,048 held, three instrumented workers on two cores took
            // longer than that to read a fetch, and the server delivered most events again).
            let arguments = ["--group", "workers", "--ack-wait-ms", "1000", "--handle-ms", "0", "--max-held", "64"]
            let workers = try await startWorkers(3, server: server, arguments)
            // At most 512 publishes awaiting their acks (the demo's default is 4,096): beside
            // busy workers, an ack that waits behind thousands of others can outlast the 5 s
            // publish timeout, and a retried publish is a duplicate.
            let producer = Task { try await produce(count, server: server, extra: ["--window", "512"]) }
            let victim = workers[0]
            #expect(await victim.waitForStdout(timeout: .seconds(60)) { $0.count > 1_000 })
            victim.kill9()
            _ = await victim.waitForExit(timeout: .seconds(10))
            let (summary, _) = try await producer.value
            #expect(summary.acknowledged == count)
            let survivors = Array(workers.dropFirst())
            let complete = await poll(timeout: .seconds(90)) {
                Set(workers.flatMap(\.handledOrderIDs)).count == count
            }
            #expect(complete, "handled \(Set(workers.flatMap(\.handledOrderIDs)).count) of \(count)")
            let redelivered = workers.flatMap(\.handledOrderIDs).count - count
            print("X2 kill -9: victim handled \(victim.handledCount) before dying; \(redelivered) handled twice")
            for worker in survivors { worker.terminate() }
            for worker in survivors { _ = await worker.waitForExit(timeout: .seconds(10)) }
        }
    }

    @Test("X2: a broker restart mid-stream loses no acknowledged event")
    func brokerRestartLosesNoAcknowledgedEvent() async throws {
        try await withNATSServer { server in
            let count = 20_000
            // 2 s ack wait, 128 held: a fetch read well within the ack wait (see the kill -9 test).
            let workers = try await startWorkers(
                2, server: server, ["--group", "workers", "--ack-wait-ms", "2000", "--max-held", "128"])
            // At most 512 publishes awaiting their acks (the demo's default is 4,096): beside
            // busy workers, an ack that waits behind thousands of others can outlast the 5 s
            // publish timeout, and a retried publish is a duplicate.
            let producer = Task { try await produce(count, server: server, extra: ["--window", "512"]) }
            #expect(await poll(timeout: .seconds(60)) { workers.map(\.handledCount).reduce(0, +) > 2_000 })
            await server.stop(immediately: true)
            try await server.start()
            let (summary, _) = try await producer.value
            #expect(summary.acknowledged == count, "acknowledged \(summary.acknowledged ?? 0)")
            #expect(summary.unacknowledged == 0)
            let complete = await poll(timeout: .seconds(90)) {
                Set(workers.flatMap(\.handledOrderIDs)).count == count
            }
            #expect(complete, "handled \(Set(workers.flatMap(\.handledOrderIDs)).count) of \(count)")
            print(
                "X2 broker restart: \(summary.duplicates ?? 0) publish duplicates, "
                    + "\(workers.flatMap(\.handledOrderIDs).count - count) handled twice")
            for worker in workers { worker.terminate() }
            for worker in workers { _ = await worker.waitForExit(timeout: .seconds(10)) }
        }
    }

    @Test("K3: SIGTERM stops a worker gracefully: what it held is handled and acknowledged, the rest goes to another")
    func gracefulShutdownAcknowledgesWhatItHolds() async throws {
        try await withNATSServer { server in
            let count = 2_000
            _ = try await produce(count, server: server)
            // It holds at most 256 at a time (fetched included), so it is stopped holding far fewer than all.
            let first = try await startWorkers(
                1, server: server, ["--group", "workers", "--handle-ms", "1", "--max-held", "256"])[0]
            #expect(await first.waitForStdout(timeout: .seconds(30)) { $0.count > 100 })
            first.terminate()
            #expect(await first.waitForExit(timeout: .seconds(30)) == 0)
            // The default ack wait is 30 s: anything the first worker left unacknowledged would not
            // reach the second one within this test.
            let second = try await startWorkers(1, server: server, ["--group", "workers"])[0]
            let complete = await poll(timeout: .seconds(20)) {
                first.handledCount + second.handledCount >= count
            }
            #expect(complete, "handled \(first.handledCount) + \(second.handledCount) of \(count)")
            let ids = first.handledOrderIDs + second.handledOrderIDs
            #expect(ids.count == count && Set(ids) == Set(1...count))
            #expect(first.handledCount < count, "the first worker was stopped before the end")
            second.terminate()
            _ = await second.waitForExit(timeout: .seconds(10))
        }
    }

    @Test("X2: broadcast to three processes gives each every event")
    func broadcastToThree() async throws {
        try await withNATSServer { server in
            let count = 5_000
            let workers = try await startWorkers(3, server: server, ["--broadcast"])
            let (summary, _) = try await produce(count, server: server)
            #expect(summary.acknowledged == count)
            let all = await poll(timeout: .seconds(60)) { workers.allSatisfy { $0.handledCount >= count } }
            #expect(all, "\(workers.map(\.handledCount))")
            for worker in workers {
                #expect(worker.handledOrderIDs.sorted() == Array(1...count))
                worker.terminate()
            }
            for worker in workers { _ = await worker.waitForExit(timeout: .seconds(10)) }
        }
    }

    @Test("X2: a throwing handler is retried with backoff, then dead-lettered with the error")
    func throwingHandlerIsRetriedThenDeadLettered() async throws {
        try await withNATSServer { server in
            let raw = try RawNATSSocket(port: server.port)
            #expect(await raw.handshake())
            raw.send("SUB eds.deadletter.> 1\r\nPING\r\n")
            _ = await raw.read(until: .seconds(5)) { $0.contains("PONG") }
            let workers = try await startWorkers(
                1, server: server, ["--group", "workers", "--fail", "--max-deliver", "3", "--retry-delay-ms", "200"])
            let worker = workers[0]
            _ = try await produce(1, server: server)
            #expect(
                await worker.waitForStdout(timeout: .seconds(30)) { $0.contains { $0.hasPrefix("{\"deadLetter\"") } })
            // The worker stamps each failure with its own clock: the reader's clock adds pipe jitter.
            let failures = worker.demoLines.filter { $0.failed != nil }
            #expect(failures.map(\.delivery) == [1, 2, 3])
            let times = failures.compactMap(\.atMs)
            #expect(times.count == 3)
            if times.count == 3 {
                let first = times[1] - times[0]
                let second = times[2] - times[1]
                #expect(first >= 195 && second >= 395, "waited \(first) ms, then \(second) ms")
            }
            #expect(worker.handledCount == 0)
            let copy = await raw.read(until: .seconds(10)) { $0.contains("handler failed 3 times") }
            #expect(copy.contains("HMSG eds.deadletter.orders.placed"))
            #expect(copy.contains("Eds-Error: handler failed 3 times"))
            worker.terminate()
            _ = await worker.waitForExit(timeout: .seconds(10))
        }
    }

    @Test("X2: a malformed body and an unknown event name each end on the dead-letter subject with a clear error")
    func malformedAndUnknownAreDeadLettered() async throws {
        try await withNATSServer { server in
            let workers = try await startWorkers(1, server: server, ["--group", "workers"])
            let worker = workers[0]
            let raw = try RawNATSSocket(port: server.port)
            #expect(await raw.handshake())
            raw.send("SUB eds.deadletter.> 1\r\n")
            raw.send(
                rawPublish(
                    "eds.orders.placed", headers: ["Nats-Msg-Id: bad-1", "Eds-Event: orders.placed"], body: "{not json")
            )
            raw.send(
                rawPublish(
                    "eds.orders.placed", headers: ["Nats-Msg-Id: unknown-1", "Eds-Event: orders.unknown"],
                    body: "{\"orderID\":1,\"customerID\":2,\"amount\":3}"))
            let copies = await raw.read(until: .seconds(20)) {
                $0.contains("unknown event name") && $0.contains("undecodable body")
            }
            #expect(copies.contains("HMSG eds.deadletter.orders.placed"))
            #expect(copies.contains("HMSG eds.deadletter.orders.unknown"))
            #expect(copies.contains("Eds-Error: undecodable body for orders.placed"))
            #expect(copies.contains("Eds-Error: unknown event name 'orders.unknown'"))
            #expect(copies.contains("{not json"))
            #expect(
                await worker.waitForStdout(timeout: .seconds(10)) { lines in
                    lines.filter { $0.hasPrefix("{\"deadLetter\"") }.count == 2
                })
            #expect(worker.handledCount == 0)
            worker.terminate()
            _ = await worker.waitForExit(timeout: .seconds(10))
        }
    }
}

/// `HPUB` with the given header lines.
func rawPublish(_ subject: String, headers: [String], body: String) -> String {
    let block = "NATS/1.0\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n"
    return "HPUB \(subject) \(block.utf8.count) \(block.utf8.count + body.utf8.count)\r\n\(block)\(body)\r\n"
}
