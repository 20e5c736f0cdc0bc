// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import Testing

@testable import EventDrivenSwift

/// A listener registered on a context that can never run again (the `.requesterThread` of an
/// EventThread's callback after the thread cancelled itself, or `.thread(t)` of a cancelled
/// `t`) fails its registration with a `threadCancelled` error, as `addEventCallback` on a
/// cancelled thread does. Before, it stayed registered, without an error, and every event to it
/// was counted as discarded.
@Suite("L3: registering on a closed context")
struct ClosedContextRegistrationTests {
    private struct Stop: Eventable {}
    private struct Later: Eventable {}

    /// Cancels itself in its callback, then registers a listener from there.
    private final class SelfCancellingThread: EventThread, @unchecked Sendable {  // Sendable stores only
        let registered = CoreRecorder<EventListenerHandle>()
        let done = DispatchSemaphore(value: 0)

        override func registerEventListeners() {
            addEventCallback(Stop.self) { [bus] _, _ in
                _ = self.cancel()
                self.registered.append(bus.listen(Later.self) { _, _ in })
                self.done.signal()
            }
        }
    }

    @Test("a listener registered in a callback after its thread cancelled itself fails with threadCancelled")
    func requesterContextOfCancelledThread() async {
        let bus = EventBus(label: "closed-requester")
        let errors = coreCollectErrors(on: bus)
        let thread = SelfCancellingThread(bus: bus)
        Stop().queue(on: bus)
        await coreWait(thread.done)
        let handle = thread.registered.values.first
        #expect(handle?.registrationError?.code == .threadCancelled)
        #expect(handle?.isActive == false)
        #expect(errors.values.map(\.code) == [.threadCancelled])
        Later().queue(on: bus)
        await bus.drain()
        #expect(bus.statistics.discarded == 0, "no subscriber is left to discard it")
        #expect(bus.subscriberCount(for: Later.self) == 0)
    }

    @Test("a listener registered with .thread(t) of a cancelled t fails with threadCancelled")
    func explicitThreadCancelled() async {
        let bus = EventBus(label: "closed-thread")
        let thread = EventThread(bus: bus)
        _ = thread.cancel()
        let handle = bus.listen(Later.self, executeOn: .thread(thread)) { _, _ in }
        #expect(handle.registrationError?.code == .threadCancelled)
        #expect(bus.subscriberCount(for: Later.self) == 0)
    }
}
