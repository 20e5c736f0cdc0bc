// The temperature story of the EventDrivenSwift README, told end to end on any platform.
import EventDrivenSwift

struct TemperatureEvent: Eventable {
    var temperatureInCelsius: Float
}

enum TemperatureRating: String, Sendable {
    case belowFreezing = "Below Freezing"
    case freezing = "Freezing"
    case reallyCold = "Really Cold"
    case cold = "Cold"
    case chilly = "Chilly"
    case warm = "Warm"
    case hot = "Hot"
    case reallyHot = "Really Hot"
    case boiling = "Boiling"
    case aboveBoiling = "Steam"

    static func fromTemperature(_ temperatureInCelsius: Float) -> TemperatureRating {
        if temperatureInCelsius < 0 { return .belowFreezing }
        if temperatureInCelsius == 0 { return .freezing }
        if temperatureInCelsius < 5 { return .reallyCold }
        if temperatureInCelsius < 10 { return .cold }
        if temperatureInCelsius < 16 { return .chilly }
        if temperatureInCelsius < 22 { return .warm }
        if temperatureInCelsius < 25 { return .hot }
        if temperatureInCelsius < 100 { return .reallyHot }
        if temperatureInCelsius == 100 { return .boiling }
        return .aboveBoiling
    }
}

/// The reciprocal event: the temperature together with its rating.
struct TemperatureRatingEvent: Eventable {
    var temperatureInCelsius: Float
    var temperatureRating: TemperatureRating
}

protocol TemperatureProcessorObserver: AnyObject {
    func onTemperatureEvent(temperatureInCelsius: Float)
}

/// Receives temperatures on a thread of its own, rates them, tells its observers, and
/// dispatches the rating as a reciprocal event.
final class TemperatureProcessor: EventThread, @unchecked Sendable {  // its state is in @ThreadSafeSemaphore properties
    /// The latest temperature received.
    @ThreadSafeSemaphore public var temperatureInCelsius: Float = Float.zero
    /// The rating of the latest temperature.
    @ThreadSafeSemaphore public var temperatureRating: TemperatureRating = .freezing

    override func registerEventListeners() {
        addEventCallback(onTemperatureEvent, forEventType: TemperatureEvent.self)
    }

    func onTemperatureEvent(_ event: TemperatureEvent, _ priority: EventPriority, _ dispatchTime: DispatchTime) {
        temperatureInCelsius = event.temperatureInCelsius
        temperatureRating = TemperatureRating.fromTemperature(event.temperatureInCelsius)
        withObservers { (observer: TemperatureProcessorObserver) in
            observer.onTemperatureEvent(temperatureInCelsius: event.temperatureInCelsius)
        }
        TemperatureRatingEvent(temperatureInCelsius: temperatureInCelsius, temperatureRating: temperatureRating).queue()
    }
}

/// An observer of the processor, as a view might be.
// @unchecked Sendable: only touched from the processor's thread
final class Thermometer: TemperatureProcessorObserver, @unchecked Sendable {
    func onTemperatureEvent(temperatureInCelsius: Float) {
        print("  observer: the processor saw \(temperatureInCelsius) °C")
    }
}

/// A view model that listens for ratings. The unapplied method `Self.onRating` lets the model
/// be freed while it is still registered.
// @unchecked Sendable: its fields are only touched from its listener's serial context
final class TemperatureRatingViewModel: @unchecked Sendable {
    var temperatureInCelsius: Float = 0
    var temperatureRating: TemperatureRating = .freezing
    var listenerHandle: EventListenerHandling?

    init() {
        listenerHandle = TemperatureRatingEvent.addListener(self, TemperatureRatingViewModel.onRating)
    }

    func onRating(_ event: TemperatureRatingEvent, _ priority: EventPriority, _ dispatchTime: DispatchTime) {
        temperatureInCelsius = event.temperatureInCelsius
        temperatureRating = event.temperatureRating
        print("  view model: \(event.temperatureInCelsius) °C is \(event.temperatureRating.rawValue)")
    }
}

let bus = EventCentral.shared
print("1. An EventThread receives a TemperatureEvent")
let temperatureProcessor = TemperatureProcessor()
let thermometer = Thermometer()
temperatureProcessor.addObserver(thermometer)
print("  before: \(temperatureProcessor.temperatureInCelsius) °C, \(temperatureProcessor.temperatureRating.rawValue)")
var viewModel: TemperatureRatingViewModel? = TemperatureRatingViewModel()
TemperatureEvent(temperatureInCelsius: 25.5).queue()
await bus.drain()
await bus.drain()  // the reciprocal rating event was dispatched by a handler
print("  after: \(temperatureProcessor.temperatureInCelsius) °C, \(temperatureProcessor.temperatureRating.rawValue)")

print("2. Priorities: one batch runs stacked events first, then queued ones")
let order = ThreadSafeSemaphore(wrappedValue: [String]())
struct Labelled: Eventable { let label: String }
let gate = DispatchSemaphore(value: 0)
struct Gate: Eventable {}
let orderListener = bus.listen(Labelled.self, executeOn: .listenerThread) { event, _ in
    order.withLock { $0.append(event.label) }
}
let gateListener = bus.listen(Gate.self, executeOn: .listenerThread) { _, _ in gate.wait() }
Gate().queue()
Labelled(label: "q1").queue(priority: .normal)
Labelled(label: "s1").stack(priority: .normal)
Labelled(label: "q2").queue(priority: .high)
Labelled(label: "s2").stack(priority: .low)
Labelled(label: "s3").stack(priority: .normal)
Labelled(label: "q3").queue(priority: .lowest)
gate.signal()
await bus.drain()
print("  dispatched q1 s1 q2 s2 s3 q3, handled \(order.wrappedValue.joined(separator: " "))")
orderListener.remove()
gateListener.remove()

print("3. Latest-only interest skips a backlog")
let latest = ThreadSafeSemaphore(wrappedValue: [Float]())
let latestListener = bus.listen(TemperatureEvent.self, executeOn: .listenerThread, interestedIn: .latestOnly) {
    event, _ in
    latest.withLock { $0.append(event.temperatureInCelsius) }
}
Gate().queue()
let gateAgain = bus.listen(Gate.self, executeOn: .listenerThread) { _, _ in gate.wait() }
Gate().queue()
for reading in [10, 11, 12, 13] as [Float] { TemperatureEvent(temperatureInCelsius: reading).queue() }
gate.signal()
await bus.drain()
await bus.drain()
print("  four readings queued behind a busy listener; it saw only \(latest.wrappedValue)")
latestListener.remove()
gateAgain.remove()

print("4. Scheduled dispatch, without a main run loop")
let fired = DispatchSemaphore(value: 0)
let scheduledListener = bus.listen(TemperatureEvent.self, executeOn: .taskThread) { event, metadata in
    if event.temperatureInCelsius == 100 {
        let late = (DispatchTime.now().uptimeNanoseconds - metadata.dispatchTime.uptimeNanoseconds) / 1_000
        print("  the scheduled 100 °C reading arrived \(late) µs after it was due")
        fired.signal()
    }
}
let cancelled = TemperatureEvent(temperatureInCelsius: -40).scheduleQueue(at: .now() + 0.2)
TemperatureEvent(temperatureInCelsius: 100).scheduleQueue(at: .now() + 0.3, priority: .highest)
print("  cancelling the -40 °C reading before it is due: \(cancelled.cancel())")
fired.wait()
scheduledListener.remove()

print("5. Owners: a freed view model is no longer called")
viewModel = nil
TemperatureEvent(temperatureInCelsius: 30).queue()
await bus.drain()
await bus.drain()

print("6. Misuse is reported, not ignored")
let failed = TemperatureEvent.addListener(nil, { _, _, _ in })
print("  addListener(nil, …): \(failed.registrationError.map(String.init(describing:)) ?? "no error")")

print("7. Stopping the EventThread")
weak var weakProcessor: TemperatureProcessor?
do {
    let processor = TemperatureProcessor()
    weakProcessor = processor
    let discarded = processor.cancel()
    print("  cancelled with \(discarded) events discarded")
}
print("  a cancelled EventThread is freed: \(weakProcessor == nil)")
_ = temperatureProcessor.cancel(draining: true)

print("8. Channels, states and consumers on the same bus")
// A state: a new subscriber gets the current value first; an equal value notifies no one.
let roomTemperature = EventState<Float>(label: "Room temperature", key: "kitchen")
bus.set(roomTemperature, to: 19.5)
let roomSubscription = bus.subscribe(roomTemperature, on: .synchronous) { celsius in
    print("  kitchen is \(celsius) °C, \(TemperatureRating.fromTemperature(celsius).rawValue)")
}
bus.set(roomTemperature, to: 19.5)  // equal: nothing printed
bus.set(roomTemperature, to: 23)
print("  read without subscribing: \(bus.value(of: roomTemperature) ?? .nan) °C")
roomSubscription.unsubscribe()

// A keyed channel with a one-shot handler.
let alarms = EventChannel<String>(label: "Alarms", key: "kitchen")
bus.subscribe(alarms, on: .synchronous) { subscription, message in
    print("  first kitchen alarm: \(message)")
    subscription.unsubscribe()
}
bus.publish(alarms, "too hot")
bus.publish(alarms, "still too hot")  // nobody listens any more
bus.publish(EventChannel<String>(label: "Alarms", key: "cellar"), "too cold")  // another key, another channel

// A consumer, synchronous dispatch, and the did-consume notice.
final class TemperatureLog: EventConsumer, Sendable {
    var willConsume: [any Eventable.Type] { [TemperatureEvent.self] }
    func consume(_ event: any Eventable) {
        if let reading = event as? TemperatureEvent { print("  consumer logged \(reading.temperatureInCelsius) °C") }
    }
}
let temperatureLog = TemperatureLog()
bus.register(temperatureLog)
let noticeListener = bus.listen(DidConsumeEvent.self, executeOn: .synchronous) { notice, _ in
    print("  notice: \(type(of: notice.consumer)) consumed \(type(of: notice.event))")
}
bus.dispatchNow(TemperatureEvent(temperatureInCelsius: 21))  // both lines are printed before this returns
bus.unregister(temperatureLog)
noticeListener.remove()
await bus.drain()

print("9. An EventPool spreads slow work over several threads")
final class SlowRater: EventThread, @unchecked Sendable {  // no state of its own beyond EventThread's
    static let handledBy = ThreadSafeSemaphore(wrappedValue: [ObjectIdentifier: Int]())
    override func registerEventListeners() {
        addEventCallback(SlowReading.self) { [unowned self] reading, _ in
            SlowRater.handledBy.withLock { $0[ObjectIdentifier(self), default: 0] += 1 }
        }
    }
}
struct SlowReading: Eventable { let temperatureInCelsius: Float }
let pool = EventPool<SlowRater>(capacity: 4, balancer: EventPoolRoundRobinBalancer())
for reading in 0..<20 { SlowReading(temperatureInCelsius: Float(reading)).queue() }
await bus.drain()
print("  20 readings over \(pool.threadCount) threads: \(SlowRater.handledBy.wrappedValue.values.sorted()) each")
pool.stop(draining: true)

print("Statistics of the shared bus: \(bus.statistics)")
