// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// An object that consumes the events of the types it lists, synchronously, on the thread
/// that dispatches them.
///
/// ```swift
/// final class FlowController: EventConsumer {
///     var willConsume: [any Eventable.Type] { [NavigationEvent.self, ShowUserRewardEvent.self] }
///
///     func consume(_ event: any Eventable) {
///         switch event {
///         case let navigation as NavigationEvent: navigate(to: navigation.destination)
///         case is ShowUserRewardEvent: showPrize()
///         default: break
///         }
///     }
/// }
/// bus.register(flowController)
/// bus.dispatchNow(NavigationEvent(destination: .screenTwo))
/// ```
///
/// List ``AllEvents`` in ``willConsume`` to consume every event type; ``excludeList``
/// subtracts types from it. The bus reads both lists once, when the consumer is registered.
///
/// Consumers run on the dispatching thread, before the dispatch returns, in the order they
/// were registered: for every event dispatched on the bus (`queue`, `stack`, `dispatchNow`,
/// scheduled), not for channel messages or states. A consumer that may receive events from
/// several threads must be thread-safe, which `Sendable` asks of it. Keep `consume` quick: the
/// dispatcher waits for it. Each consumption counts as a delivery in ``EventBus/statistics``;
/// an event that only consumers took is not counted as undelivered.
public protocol EventConsumer: AnyObject, Sendable {
    /// The event types this consumer consumes; ``AllEvents`` stands for every type.
    var willConsume: [any Eventable.Type] { get }
    /// The event types this consumer never consumes, even those ``willConsume`` covers;
    /// empty by default. ``AllEvents`` here excludes every type.
    var excludeList: [any Eventable.Type] { get }
    /// Consumes one event of a type the consumer accepts.
    func consume(_ event: any Eventable)
}

extension EventConsumer {
    /// No exclusions.
    public var excludeList: [any Eventable.Type] { [] }
}
