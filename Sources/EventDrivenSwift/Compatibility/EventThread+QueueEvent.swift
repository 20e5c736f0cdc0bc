// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

extension EventThread {
    /// EventDrivenSwift 5.2's `queueEvent`: dispatches `event` through the queue of this
    /// thread's bus. The native form is `event.queue(on: thread.bus, priority:)`.
    public func queueEvent(_ event: any Eventable, priority: EventPriority = .normal) {
        bus._dispatchErased(event, method: .queue, priority: priority)
    }

    /// EventDrivenSwift 5.2's `stackEvent`: dispatches `event` through the stack of this
    /// thread's bus. The native form is `event.stack(on: thread.bus, priority:)`.
    public func stackEvent(_ event: any Eventable, priority: EventPriority = .normal) {
        bus._dispatchErased(event, method: .stack, priority: priority)
    }
}

extension EventBus {
    /// Dispatches an event known only as `any Eventable`, opened to its dynamic type so that it
    /// routes exactly as a typed dispatch does.
    func _dispatchErased(_ event: any Eventable, method: EventDispatchMethod, priority: EventPriority) {
        func open<E: Eventable>(_ event: E) { dispatch(event, method: method, priority: priority) }
        open(event)
    }
}
