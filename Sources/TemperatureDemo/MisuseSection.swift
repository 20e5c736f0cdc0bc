// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift

// Section 6: misuse is reported through the error handler and the bus's log.

/// What the error handler prints for each kind of error. A `switch` over the error's code has a
/// `default`: a later version of the library may add codes.
private func summary(of error: EventDrivenError) -> String {
    switch error.code {
    case .nilOwner, .missingCustomFilter: ".\(error.code): nothing was registered"
    case .negativeMaximumAge: ".negativeMaximumAge(\(error.maximumAge ?? 0) ns): nothing was registered"
    case .busShutDown: ".busShutDown(\(error.bus ?? "?")): the event was refused"
    case .handlerFailed: ".handlerFailed(\(error.event.map { "\(type(of: $0))" } ?? "?"))"
    case .synchronousDepthExceeded: ".synchronousDepthExceeded(limit \(error.limit ?? 0))"
    default: ".\(error.code)"
    }
}

func misuseSection() async {
    section(
        6, "Misuse is reported, not ignored",
        "Three registrations that cannot work register nothing: each returns a handle carrying its",
        "registrationError, and the bus passes the error to its error handler (bus.setErrorHandler)",
        "and logs it: at .debug while an error handler is set, at .info otherwise, as swift-log asks",
        "of libraries, so the handler you set decides what the user sees. A dispatch after shutdown",
        "is refused and reported the same way.")
    let bus = EventBus.demo("Misuse")
    bus.setErrorHandler { error in print("    error handler: \(summary(of: error))") }

    print("  TemperatureEvent.addListener(nil, …):")
    let nilOwner = TemperatureEvent.addListener(nil, { _, _, _ in }, on: bus)
    print("  TemperatureEvent.addListener(owner, …, interestedIn: .custom) without a customFilter:")
    let owner = Thermometer()
    let noFilter = TemperatureEvent.addListener(owner, { _, _, _ in }, interestedIn: .custom, on: bus)
    print("  TemperatureEvent.addListener(owner, …, interestedIn: .youngerThan, maximumAge: -1):")
    let negativeAge = TemperatureEvent.addListener(
        owner, { _, _, _ in }, interestedIn: .youngerThan, maximumAge: -1, on: bus)
    let handles = [nilOwner, noFilter, negativeAge]
    print("  handles active: \(handles.map(\.isActive)), with an error: \(handles.map { $0.registrationError != nil })")
    print("  listeners registered for TemperatureEvent: \(bus.subscriberCount(for: TemperatureEvent.self))")

    await bus.shutdown()
    print("  TemperatureEvent(…).queue(on: bus) after bus.shutdown():")
    TemperatureEvent(temperatureInCelsius: 21).queue(on: bus)
    printStatistics(of: bus, ["rejected": "the reading queued after shutdown"])
}
