// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import Testing

private struct Blocker: Eventable {}
private struct Probe: Eventable { let sent: UInt64 }

/// Listeners' own serial contexts share the global queue's threads (see *Delivery and Ordering*):
/// handlers that block hold them. Delivery to the other contexts goes on, late; a queue of the
/// listener's own is not held up. Prints how long the probe waited in each case (a figure the
/// article quotes, not a check).
@Suite("L3: serial contexts while other contexts' handlers block", .serialized)
struct SerialContextBlockingTests {
    @Test(
        "with a handler per processor blocked in contexts of their own, another context's event is still delivered; a queue of its own is not held up",
        arguments: ["serial context", "queue of its own"])
    func deliveredWhileOthersBlock(receiver: String) {
        let bus = EventBus(label: "blocking-contexts")
        let release = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        let received = DispatchSemaphore(value: 0)
        let waited = LockedValue<UInt64>(0)
        // As many as the global queue starts threads at once: one per processor.
        let blockers = ProcessInfo.processInfo.activeProcessorCount
        for _ in 0..<blockers {
            bus.listen(Blocker.self, executeOn: .requesterThread) { _, _ in
                entered.signal()
                release.wait()
            }
        }
        let context: DeliveryContext =
            receiver == "serial context" ? .requesterThread : .queue(DispatchQueue(label: "probe"))
        bus.listen(Probe.self, executeOn: context) { probe, _ in
            waited.withLock { $0 = DispatchTime.now().uptimeNanoseconds - probe.sent }
            received.signal()
        }
        bus.queue(Blocker())
        var inside = 0
        while inside < blockers, entered.wait(timeout: .now() + .seconds(30)) == .success { inside += 1 }
        bus.queue(Probe(sent: DispatchTime.now().uptimeNanoseconds))
        let delivered = received.wait(timeout: .now() + .seconds(30)) == .success
        for _ in 0..<blockers { release.signal() }
        #expect(inside == blockers)
        #expect(delivered)
        let microseconds = waited.withLock { $0 } / 1_000
        print("\(receiver), \(blockers) handlers blocked elsewhere: the event waited \(microseconds) µs")
    }
}
