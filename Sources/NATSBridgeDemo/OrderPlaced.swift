// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift

/// The demo's event: `orders.placed`, version 1.
struct OrderPlaced: Eventable, Codable {
    var orderID: Int
    var customerID: Int
    var amount: Double
}
