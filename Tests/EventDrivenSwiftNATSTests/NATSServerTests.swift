// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Foundation
import Logging
import NIOCore
import Testing

@testable import EventDrivenSwiftNATS

/// Tests against a real `nats-server -js` of their own, one at a time (each starts its own
/// server on a free port; children share the machine's two cores).
@Suite("NATS with a server", .serialized, .timeLimit(.minutes(5)))
struct NATSServerTests {}

struct OrderPlaced: Eventable, Codable, Equatable {
    var orderID: Int
    var customerID: Int
    var amount: Double
}

struct NotRegistered: Eventable, Codable {}

var quietLogger: Logger {
    var logger = Logger(label: "test")
    logger.logLevel = .critical
    return logger
}

func registry() throws -> NATSEventRegistry {
    let events = NATSEventRegistry()
    try events.register(OrderPlaced.self, name: "orders.placed", version: 1)
    return events
}

func connectedClient(_ server: NATSServerProcess, configure: (inout NATSClientConfiguration) -> Void = { _ in })
    async throws -> NATSClient
{
    var configuration = try NATSClientConfiguration(server: server.url)
    configure(&configuration)
    let client = NATSClient(configuration: configuration, logger: quietLogger)
    try await client.connect()
    return client
}

/// A thread-safe list for handlers to append to.
final class Collected<T: Sendable>: Sendable {
    private let box = NIOLockedBoxShim<[T]>([])
    func append(_ value: T) { box.withLock { $0.append(value) } }
    var values: [T] { box.withLock { $0 } }
}
