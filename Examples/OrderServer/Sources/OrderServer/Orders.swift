// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Hummingbird
import Synchronization

/// An order as a client posts it.
struct NewOrder: Decodable {
    var amountCents: Int
}

/// An order the server accepted: the HTTP handler dispatches it.
struct OrderPlaced: Eventable, ResponseEncodable {
    var id: Int
    var amountCents: Int
}

/// An order charged: the charging listener dispatches it, the storing listener stores it.
struct OrderCharged: Eventable, ResponseEncodable {
    var id: Int
    var amountCents: Int
}

/// What `GET /orders/count` answers.
struct OrderCounts: ResponseEncodable {
    var accepted: Int
    var charged: Int
    var stored: Int
}

/// Counts orders as they pass each stage; safe from any thread.
final class OrderCounters: Sendable {
    let accepted = Atomic<Int>(0)
    let charged = Atomic<Int>(0)
}

/// The charged orders, in memory (a database in a real server): an actor, written by an async listener.
actor OrderStore {
    private(set) var count = 0
    private(set) var totalCents = 0

    func save(_ order: OrderCharged) {
        count += 1
        totalCents += order.amountCents
    }
}

/// Charges `order`: a simulated cost of `cost` of CPU work (a busy wait, so that it costs the
/// same wherever it runs).
func charge(_ order: OrderPlaced, cost: Duration, counters: OrderCounters) -> OrderCharged {
    let clock = ContinuousClock()
    let end = clock.now.advanced(by: cost)
    while clock.now < end {}
    counters.charged.add(1, ordering: .relaxed)
    return OrderCharged(id: order.id, amountCents: order.amountCents)
}
