// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift

// Section 10: async handlers, and what happens when one throws.

struct OrderPlaced: Eventable { let items: [String] }

/// The stock of a shop: reserving an item it does not have throws.
actor Inventory {
    enum Shortage: Error { case outOfStock(String) }
    private var stock = ["thermometer": 2, "fan": 1]

    func reserve(_ items: [String]) async throws {
        for item in items {
            guard let left = stock[item], left > 0 else { throw Shortage.outOfStock(item) }
            stock[item] = left - 1
        }
    }

    var remaining: String { stock.keys.sorted().map { "\($0) \(stock[$0]!)" }.joined(separator: ", ") }
}

func asyncHandlersSection() async {
    section(
        10, "Async handlers: bus.listenAsync, and an error handler for what they throw",
        "listenAsync runs an async, throwing handler in one task of its own, one event at a time, in",
        "dispatch order. The second order asks for a heater the shop does not stock: the handler",
        "throws, the error is counted as failed, logged, and passed to the error handler; the third",
        "order is handled all the same.")
    let bus = EventBus.demo("AsyncHandlers")
    bus.setErrorHandler { error in
        if error.code == .handlerFailed, let event = error.event, let thrown = error.underlyingError {
            print("    error handler: \(type(of: event)) threw \(thrown)")
        }
    }
    let inventory = Inventory()
    bus.listenAsync(OrderPlaced.self) { order in
        print("  reserving \(order.items.joined(separator: " and "))")
        try await inventory.reserve(order.items)
    }
    OrderPlaced(items: ["thermometer"]).queue(on: bus)
    OrderPlaced(items: ["heater"]).queue(on: bus)
    OrderPlaced(items: ["thermometer", "fan"]).queue(on: bus)
    await bus.drain()  // covers async handlers too
    print("  left in stock: \(await inventory.remaining)")
    await bus.shutdown()
    printStatistics(
        of: bus,
        [
            "delivered": "the three orders (a handler that throws has still run)",
            "failed": "the heater order, whose handler threw",
        ])
}
