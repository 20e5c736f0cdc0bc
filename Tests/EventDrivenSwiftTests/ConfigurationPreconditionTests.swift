// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Testing

@Suite("Configuration no program can mean is a documented precondition (README, Errors)")
struct ConfigurationPreconditionTests {
    @Test("an EventPool with a capacity below 1 stops the process, as documented")
    func poolWithoutThreadsStopsTheProcess() async {
        await #expect(processExitsWith: .failure) {
            _ = EventPool<EventThread>(capacity: 0, bus: EventBus(label: "no-threads"))
        }
    }

    @Test("a maximumSynchronousDepth below 1 stops the process, as documented")
    func synchronousDepthBelowOneStopsTheProcess() async {
        await #expect(processExitsWith: .failure) {
            EventBus.maximumSynchronousDepth = 0
        }
    }
}
