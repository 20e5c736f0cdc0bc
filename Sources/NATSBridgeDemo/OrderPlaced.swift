import EventDrivenSwift

/// The demo's event: `orders.placed`, version 1.
struct OrderPlaced: Eventable, Codable {
    var orderID: Int
    var customerID: Int
    var amount: Double
}
