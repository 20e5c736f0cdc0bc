// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// The notice a bus dispatches after a consumer has consumed an event: who consumed what.
///
/// It is dispatched on the same bus, on the thread that dispatched the event, right after
/// ``EventConsumer/consume(_:)`` returns and before the next consumer runs. It reaches every
/// listener, subscriber and consumer of `DidConsumeEvent`, like any other event. It does not
/// depend on a run loop, and it is on its way before the dispatch call returns, so releasing
/// the bus afterwards loses nothing. Consuming a `DidConsumeEvent` produces no further notice.
///
/// The bus dispatches notices only while someone subscribed to them.
///
/// ```swift
/// final class ConsumptionLogger: EventConsumer {
///     var willConsume: [any Eventable.Type] { [DidConsumeEvent.self] }
///     func consume(_ event: any Eventable) {
///         guard let notice = event as? DidConsumeEvent else { return }
///         print("\(type(of: notice.consumer)) consumed \(notice.event)")
///     }
/// }
/// ```
public struct DidConsumeEvent: Eventable {
    /// The consumer that consumed ``event``. The notice holds it until the notice is handled.
    public let consumer: any EventConsumer
    /// The event that was consumed.
    public let event: any Eventable

    /// A notice that `consumer` consumed `event`; the bus makes these itself, and tests of a
    /// logging consumer make their own.
    public init(consumer: any EventConsumer, event: any Eventable) {
        self.consumer = consumer
        self.event = event
    }
}
