// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Testing

private struct Quit: Eventable {}

/// A "quit" event whose async handler shuts the bus down (found by outside adversarial tests:
/// the shutdown waited for that very handler, and the bus hung for good).
@Suite("R5: shutdown awaited inside an async handler")
struct ShutdownFromHandlerTests {
    @Test("await bus.shutdown() inside an async listener returns, and the bus then shuts down", arguments: [0, 1, 2])
    func shutdownFromAsyncListener(variant: Int) async {
        let bus = EventBus(label: "quit-\(variant)")
        let entered = DispatchSemaphore(value: 0)
        let returned = DispatchSemaphore(value: 0)
        bus.listenAsync(Quit.self) { (_: Quit) async in
            entered.signal()
            switch variant {
            case 0: await bus.shutdown()
            case 1: await bus.shutdown(immediately: true)
            default: _ = await bus.shutdown(gracefullyWithin: .seconds(5))
            }
            returned.signal()
        }
        Quit().queue(on: bus)
        // The handler's task starts whenever Swift's pool has a thread for it: with the whole
        // suite running beside this test, that once took over 30 seconds (a CI run of every
        // test), so its start is awaited without a bound.
        await coreWait(entered)
        // From there the call returns without waiting for anything. A guard against hanging,
        // not a timing: before the fix, the handler never returned.
        let handlerReturned = await poolWait(returned, seconds: 30)
        #expect(handlerReturned)
        guard handlerReturned else { return }  // a shutdown from here would hang as well
        // A second shutdown returns once the one the handler started has finished.
        await bus.shutdown()
        #expect(bus.isShutDown)
        #expect(bus.statistics.delivered == 1)
    }
}
