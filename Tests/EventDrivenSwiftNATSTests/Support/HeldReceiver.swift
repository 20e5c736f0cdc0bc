// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift

@testable import EventDrivenSwiftNATS

/// A local event that holds a ``HeldReceiver``'s thread.
struct Hold: Eventable {}

/// An EventThread whose bounded mailbox (a subclass's `mailboxPolicy`, capacity 1) is full while a
/// bridge imports: its first `Hold` blocks its thread until ``open()``, and a second `Hold`
/// fills its mailbox (``fill(on:)``).
class HeldReceiver: EventThread, @unchecked Sendable {  // its state is the thread-safe gate and lists
    private let gate = DispatchSemaphore(value: 0)
    let holds = Collected<Int>()
    /// The orders it got: dispatched as such (`importEvents`), or as the bridge's own delivery
    /// type (what `listen` dispatches).
    let orders = Collected<Int>()

    override func registerEventListeners() {
        addEventCallback(Hold.self) { [unowned self] (_: Hold, _: EventMetadata) in
            holds.append(1)
            if holds.values.count == 1 { gate.wait() }
        }
        addEventCallback(OrderPlaced.self) { [unowned self] (order: OrderPlaced, _: EventMetadata) in
            orders.append(order.orderID)
        }
        addEventCallback(_BridgedDelivery<OrderPlaced>.self) {
            [unowned self] (delivery: _BridgedDelivery<OrderPlaced>, _: EventMetadata) in
            orders.append(delivery.event.orderID)
        }
    }

    /// Holds the receiver's thread with one `Hold` and fills its mailbox with another.
    func fill(on bus: EventBus) async -> Bool {
        bus.queue(Hold())
        guard await poll(timeout: .seconds(60), { self.holds.values.count == 1 }) else { return false }
        bus.queue(Hold())
        return true
    }

    /// Lets the first `Hold` return.
    func open() { gate.signal() }
}
