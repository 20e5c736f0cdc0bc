// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation

/// Marker types that build 100 distinct event types for S4: `Other<D3, D7>` and so on.
protocol Digit: Sendable {}
enum D0: Digit {}
enum D1: Digit {}
enum D2: Digit {}
enum D3: Digit {}
enum D4: Digit {}
enum D5: Digit {}
enum D6: Digit {}
enum D7: Digit {}
enum D8: Digit {}
enum D9: Digit {}

/// One of 100 event types that nobody sends, registered beside `Tick` in S4.
struct Other<A: Digit, B: Digit>: Eventable {}

private let digits: [any Digit.Type] = [
    D0.self, D1.self, D2.self, D3.self, D4.self, D5.self, D6.self, D7.self, D8.self, D9.self,
]

private func otherType<A: Digit, B: Digit>(_: A.Type, _: B.Type) -> any Eventable.Type { Other<A, B>.self }

/// `count` distinct event types (at most 100).
func otherEventTypes(_ count: Int) -> [any Eventable.Type] {
    var types: [any Eventable.Type] = []
    for a in digits {
        for b in digits where types.count < count {
            types.append(otherType(a, b))
        }
    }
    return types
}

/// Our delivery modes, each on a fresh local bus per pipeline.
struct EDSContender: Contender {
    enum Mode: String, Sendable {
        case eventThread = "EDS EventThread"
        case listenerThread = "EDS .listenerThread"
        case requesterThread = "EDS .requesterThread"
        case synchronous = "EDS .synchronous"
        /// Subscribers of a labelled channel (`EventChannel<Tick>`, Causality's form) on the bus's
        /// listener thread: the channel's dispatch path (a lookup by the channel's identity).
        case channel = "EDS channel"
        /// Subscribers of an `EventState<Tick>` (Causality's states) on the bus's listener
        /// thread; the producer sets the state to each event in turn (every value differs).
        /// Opt-in: `--contenders "EDS state"`.
        case state = "EDS state"
        /// Listeners on the main actor. Opt-in, and only in a child process (`--child alloc` or
        /// `alloc-sporadic`), whose main thread runs the main queue (``needsMainQueue``): the
        /// main run measures on the main thread.
        case mainActor = "EDS .mainActor"
    }

    let mode: Mode
    var name: String { mode.rawValue }
    var kind: ContenderKind { .ours }
    var isSynchronous: Bool { mode == .synchronous }
    var routesByType: Bool { true }
    var isOptIn: Bool { mode == .mainActor || mode == .state }
    var needsMainQueue: Bool { mode == .mainActor }

    func makePipeline(receivers: Int, otherTypes: Int, handler: @escaping @Sendable (Int, Tick) -> Void) -> Pipeline {
        let bus = EventBus(label: "bench.\(mode)")
        instrument(bus)
        var threads: [EventThread] = []
        var handles: [EventListenerHandle] = []
        var subscriptions: [ChannelSubscription] = []
        var send: (Tick) -> Void = { bus.queue($0) }
        let others = otherEventTypes(otherTypes)
        switch mode {
        case .channel:
            // S4's other types are other channels of the same payload, told apart by label.
            for index in 0..<otherTypes {
                subscriptions.append(
                    bus.subscribe(EventChannel<Tick>(label: "bench.other.\(index)"), on: .listenerThread) { _ in })
            }
            let channel = EventChannel<Tick>(label: "bench.ticks")
            for index in 0..<receivers {
                subscriptions.append(bus.subscribe(channel, on: .listenerThread) { tick in handler(index, tick) })
            }
            send = { bus.publish(channel, $0) }
        case .state:
            for index in 0..<otherTypes {
                subscriptions.append(
                    bus.subscribe(EventState<Tick>(label: "bench.other.\(index)"), on: .listenerThread) { _ in })
            }
            let state = EventState<Tick>(label: "bench.ticks")
            for index in 0..<receivers {
                subscriptions.append(bus.subscribe(state, on: .listenerThread) { tick in handler(index, tick) })
            }
            send = { bus.set(state, to: $0) }
        case .eventThread:
            for index in 0..<receivers {
                let thread = EventThread(bus: bus)
                for type in others { addIgnoringCallback(type, to: thread) }
                thread.addEventCallback(Tick.self) { tick, _ in handler(index, tick) }
                threads.append(thread)
            }
        case .listenerThread, .synchronous, .mainActor:
            let executeOn: DeliveryContext =
                switch mode {
                case .synchronous: .synchronous
                case .mainActor: .mainActor
                default: .listenerThread
                }
            for type in others { handles.append(listenIgnoring(type, on: bus, executeOn: executeOn)) }
            for index in 0..<receivers {
                handles.append(bus.listen(Tick.self, executeOn: executeOn) { tick, _ in handler(index, tick) })
            }
        case .requesterThread:
            // Registered from a plain thread: each listener gets a serial context of its own.
            let registered = DispatchSemaphore(value: 0)
            let box = HandleBox()
            let thread = Thread {
                for type in others { box.handles.append(listenIgnoring(type, on: bus, executeOn: .requesterThread)) }
                for index in 0..<receivers {
                    box.handles.append(
                        bus.listen(Tick.self, executeOn: .requesterThread) { tick, _ in handler(index, tick) })
                }
                registered.signal()
            }
            thread.start()
            registered.wait()
            handles = box.handles
        }
        return Pipeline(
            send: send,
            tearDown: {
                for thread in threads { thread.cancel() }
                for handle in handles { handle.cancel() }
                for subscription in subscriptions { subscription.cancel() }
                let done = DispatchSemaphore(value: 0)
                Task.detached {
                    await bus.shutdown()
                    done.signal()
                }
                done.wait()
            })
    }
}

/// Handles made on a registering thread, read after it signals.
private final class HandleBox: @unchecked Sendable {  // written before a semaphore signal, read after the wait
    var handles: [EventListenerHandle] = []
}

private func addIgnoringCallback<E: Eventable>(_ type: E.Type, to thread: EventThread) {
    thread.addEventCallback(type) { _, _ in }
}

private func listenIgnoring<E: Eventable>(_ type: E.Type, on bus: EventBus, executeOn: DeliveryContext)
    -> EventListenerHandle
{
    bus.listen(type, executeOn: executeOn) { _, _ in }
}
