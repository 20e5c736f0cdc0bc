// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import Testing

private struct Ping: Eventable { let number: Int }
private struct Pong: Eventable { let number: Int }

@Suite("Synchronous dispatch")
struct SynchronousTests {
    @Test("D7: dispatchNow runs synchronous listeners in registration order before it returns")
    func registrationOrder() async {
        let bus = EventBus(label: "D7-order")
        let log = CoreRecorder<String>()
        for index in 0..<4 {
            bus.listen(Ping.self, executeOn: .synchronous) { _, _ in log.append("sync\(index)") }
        }
        bus.listen(Ping.self) { _, _ in log.append("async") }
        bus.dispatchNow(Ping(number: 1))
        // The queued listener may already have run on its own context; the synchronous ones ran
        // first, in order, before dispatchNow returned.
        #expect(Array(log.values.prefix(4)) == ["sync0", "sync1", "sync2", "sync3"])
        await bus.drain()
        #expect(log.values.last == "async")
        #expect(log.count == 5)
    }

    @Test("D7: dispatchNow delivers on the caller's thread")
    func callerThread() async {
        let bus = EventBus(label: "D7-thread")
        let threads = CoreRecorder<UInt>()
        bus.listen(Ping.self, executeOn: .synchronous) { _, _ in threads.append(coreThreadID()) }
        let caller = await withCheckedContinuation { (continuation: CheckedContinuation<UInt, Never>) in
            Thread {
                Ping(number: 1).dispatchNow(on: bus)
                continuation.resume(returning: coreThreadID())
            }.start()
        }
        #expect(threads.values == [caller])
    }

    @Test("D7: a synchronous listener may dispatchNow again; the nested dispatch completes first")
    func nestedDispatch() {
        let bus = EventBus(label: "D7-nested")
        let log = CoreRecorder<String>()
        bus.listen(Ping.self, executeOn: .synchronous) { ping, _ in
            log.append("ping\(ping.number)")
            bus.dispatchNow(Pong(number: ping.number))
            log.append("after\(ping.number)")
        }
        bus.listen(Pong.self, executeOn: .synchronous) { pong, _ in
            log.append("pong\(pong.number)")
            if pong.number < 2 { bus.dispatchNow(Ping(number: pong.number + 1)) }
        }
        bus.dispatchNow(Ping(number: 1))
        #expect(log.values == ["ping1", "pong1", "ping2", "pong2", "after2", "after1"])
    }

    @Test("D7: dispatchNow from many threads delivers every event exactly once")
    func concurrentDispatch() async {
        let bus = EventBus(label: "D7-concurrent")
        let log = CoreRecorder<Int>()
        bus.listen(Ping.self, executeOn: .synchronous) { ping, _ in log.append(ping.number) }
        await coreOnThreads(8) { thread in
            for step in 0..<250 { bus.dispatchNow(Ping(number: thread * 1_000 + step)) }
        }
        #expect(log.count == 2_000)
        #expect(Set(log.values).count == 2_000)
    }

    @Test("D7: dispatchNow on a shut-down bus is reported")
    func afterShutdown() async {
        let bus = EventBus(label: "D7-shutdown")
        let errors = CoreRecorder<EventDrivenError>()
        bus.setErrorHandler { errors.append($0) }
        await bus.shutdown()
        bus.dispatchNow(Ping(number: 1))
        #expect(errors.count == 1)
    }
}
