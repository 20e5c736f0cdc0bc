// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift

// Section 7: channels, states and consumers (from Causality and SwiftEventBus), and dispatchNow.

/// A consumer that logs every temperature dispatched on its bus, on the dispatching thread.
final class TemperatureLog: EventConsumer, Sendable {
    var willConsume: [any Eventable.Type] { [TemperatureEvent.self] }
    func consume(_ event: any Eventable) {
        if let reading = event as? TemperatureEvent {
            print("    consumer logged \(reading.temperatureInCelsius.celsius)")
        }
    }
}

func channelsSection() async {
    section(
        7, "Channels, states and consumers, with synchronous dispatch",
        "Every subscriber here runs .synchronous, on the publishing thread before publish/set returns,",
        "so each line is printed by the call above it.")
    let bus = EventBus.demo("Channels")

    print("  a state: a new subscriber gets the current value first; an equal value notifies no one")
    let kitchen = EventState<Float>(label: "Room temperature", key: "kitchen")
    bus.set(kitchen, to: 19.5)
    let kitchenSubscription = bus.subscribe(kitchen, on: .synchronous) { celsius in
        print("    kitchen is \(celsius.celsius), \(TemperatureRating.fromTemperature(celsius))")
    }
    let changed = bus.set(kitchen, to: 19.5)
    print("    set to an equal 19.5 °C: changed \(changed)")
    bus.set(kitchen, to: 23)
    print("    read without subscribing: \((bus.value(of: kitchen) ?? .nan).celsius)")
    kitchenSubscription.cancel()

    print("  a keyed channel with a one-shot subscriber; another key is another channel")
    let kitchenAlarms = EventChannel<String>(label: "Alarms", key: "kitchen")
    bus.subscribe(kitchenAlarms, on: .synchronous) { subscription, message in
        print("    first kitchen alarm: \(message)")
        subscription.cancel()
    }
    bus.publish(kitchenAlarms, "too hot")
    bus.publish(kitchenAlarms, "still too hot")  // nobody listens any more
    bus.publish(EventChannel<String>(label: "Alarms", key: "cellar"), "too cold")  // nobody ever listened

    print("  a consumer, dispatchNow, and the did-consume notice")
    let temperatureLog = TemperatureLog()
    bus.register(temperatureLog)
    bus.listen(DidConsumeEvent.self, executeOn: .synchronous) { notice, _ in
        print("    notice: \(type(of: notice.consumer)) consumed a \(type(of: notice.event))")
    }
    bus.dispatchNow(TemperatureEvent(temperatureInCelsius: 21))
    print("  dispatchNow returned after both lines above")
    bus.unregister(temperatureLog)
    await bus.shutdown()
    printStatistics(
        of: bus,
        [
            "delivered":
                "the kitchen's 19.5 °C (its current value, replayed to the new subscriber) and 23 °C, "
                + "the first kitchen alarm, the reading to the consumer, and the notice to its listener",
            "undelivered":
                "the second kitchen alarm (its one-shot subscriber had gone) and the cellar's alarm "
                + "(nobody subscribed to that key); a state set before anyone subscribed is stored, not lost",
        ])
}
