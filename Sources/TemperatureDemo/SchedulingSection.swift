// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift

// Section 4: scheduled dispatch and cancelling it.

func schedulingSection() async {
    section(
        4, "Scheduled dispatch, without a main run loop, and cancel()",
        "Two readings are scheduled: -40 °C after 50 ms, 100 °C after 100 ms. The first is cancelled",
        "before it is due, so only 100 °C arrives. One scheduler thread serves every bus; its events",
        "carry the time they were due as their dispatch time, and the time they were scheduled.")
    let bus = EventBus.demo("Scheduling")
    let arrived = Latch()
    let received = LockedValue<[(Float, EventMetadata)]>([])
    bus.listen(TemperatureEvent.self, executeOn: .listenerThread) { reading, metadata in
        received.withLock { $0.append((reading.temperatureInCelsius, metadata)) }
        arrived.open()
    }
    let cancelled = TemperatureEvent(temperatureInCelsius: -40).schedule(after: .milliseconds(50), on: bus)
    let kept = TemperatureEvent(temperatureInCelsius: 100).schedule(after: .milliseconds(100), on: bus)
    print("  cancel() of the -40 °C reading before it was due returned \(cancelled.cancel())")
    await arrived.opened()  // waits for the event, not for a guessed time
    await bus.drain()
    for (celsius, metadata) in received.withLock({ $0 }) {
        print("  arrived: \(celsius.celsius)")
        print("    its dispatch time is the time it was due: \(metadata.dispatchTime == kept.dueTime)")
        print("    it says when it was scheduled: \(metadata.scheduledTime != nil)")
    }
    print("  handles: -40 °C isCancelled \(cancelled.isCancelled), 100 °C hasFired \(kept.hasFired)")
    await bus.shutdown()
    printStatistics(
        of: bus, ["delivered": "the 100 °C reading; the cancelled one was never dispatched, so it is not counted"])
}
