import EventDrivenSwift
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// A decoded delivery on its way to local handlers.
struct _Accepted: Sendable {
    var delivery: any TransportDelivery
    var event: any Eventable
    var info: NATSDeliveryInfo
}

/// Imports one event type: fetches from its consumer, decodes, hands the events to local
/// handlers through `settle`, then acks, naks with backoff, or dead-letters each message.
final class _Importer: Sendable {
    private struct Held: Sendable {
        var count = 0
        var waiter: CheckedContinuation<Void, Never>?
        var isStopping = false
        var isStopped = false
        var stopWaiters: [CheckedContinuation<Void, Never>] = []
    }

    let entry: NATSEventRegistry.Entry
    let group: String?
    private let transport: any EventTransport
    private let configuration: NATSBridgeConfiguration
    private let counters: _BridgeCounters
    private let logger: Logger
    private let deadLetter: @Sendable (NATSDeadLetter) -> Void
    /// Runs the local handlers of a batch; one outcome per event, `nil` for handled.
    private let settle: @Sendable ([_Accepted]) async -> [(any Error)?]
    private let held = NIOLockedValueBox(Held())

    init(
        entry: NATSEventRegistry.Entry, group: String?, transport: any EventTransport,
        configuration: NATSBridgeConfiguration, counters: _BridgeCounters, logger: Logger,
        deadLetter: @escaping @Sendable (NATSDeadLetter) -> Void,
        settle: @escaping @Sendable ([_Accepted]) async -> [(any Error)?]
    ) {
        self.entry = entry
        self.group = group
        self.transport = transport
        self.configuration = configuration
        self.counters = counters
        self.logger = logger
        self.deadLetter = deadLetter
        self.settle = settle
    }

    private var isStopping: Bool { held.withLockedValue { $0.isStopping } }

    /// Opens the consumer (again, when the broker lost it) and runs until ``stop()``; then
    /// handles and settles what it holds before returning.
    func run(ready: @escaping @Sendable (Result<Void, any Error>) -> Void) async {
        defer {
            let waiters = held.withLockedValue { held in
                held.isStopped = true
                defer { held.stopWaiters = [] }
                return held.stopWaiters
            }
            for waiter in waiters { waiter.resume() }
        }
        var isFirst = true
        while !isStopping {
            let consumer: any TransportConsumer
            do {
                consumer = try await transport.openConsumer(
                    subject: configuration.subject(for: entry.name), group: group)
            } catch {
                if isFirst {
                    ready(.failure(error))
                    return
                }
                logger.warning("cannot open the consumer for \(entry.name): \(error); retrying")
                try? await Task.sleep(for: .milliseconds(500))
                continue
            }
            if isFirst { ready(.success(())) }
            isFirst = false
            await withTaskGroup(of: Void.self) { tasks in
                tasks.addTask { await self.process(consumer) }
                await fetch(consumer)
                consumer.finish()
            }
        }
    }

    /// Stops fetching; what was fetched is still handled and settled.
    func stop() {
        let waiter = held.withLockedValue { held in
            held.isStopping = true
            defer { held.waiter = nil }
            return held.waiter
        }
        waiter?.resume()
    }

    /// Returns once ``run(ready:)`` has returned.
    func waitUntilStopped() async {
        await withCheckedContinuation { continuation in
            let isStopped = held.withLockedValue { held -> Bool in
                if held.isStopped { return true }
                held.stopWaiters.append(continuation)
                return false
            }
            if isStopped { continuation.resume() }
        }
    }

    private func fetch(_ consumer: any TransportConsumer) async {
        let consumers = configuration.consumers
        while !isStopping, !consumer.isLost {
            await withCheckedContinuation { continuation in
                let mayFetch = held.withLockedValue { held -> Bool in
                    if held.isStopping || held.count + consumers.fetchBatch <= consumers.maxHeld { return true }
                    held.waiter = continuation
                    return false
                }
                if mayFetch { continuation.resume() }
            }
            guard !isStopping else { return }
            do {
                try await consumer.fetch(batch: consumers.fetchBatch, expires: consumers.fetchExpiry)
            } catch let error as NATSError {
                if case .permissionViolation = error {
                    logger.error("fetching \(entry.name): \(error)")
                    try? await Task.sleep(for: .seconds(1))
                } else {
                    try? await Task.sleep(for: .milliseconds(100))
                }
            } catch {
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    private func process(_ consumer: any TransportConsumer) async {
        while true {
            let deliveries = await consumer.nextDeliveries()
            if deliveries.isEmpty { return }
            held.withLockedValue { $0.count += deliveries.count }
            counters.received.add(deliveries.count, ordering: .relaxed)
            var accepted: [_Accepted] = []
            accepted.reserveCapacity(deliveries.count)
            for delivery in deliveries {
                if let reason = decode(delivery, into: &accepted) { sendToDeadLetters(delivery, reason: reason) }
            }
            if !accepted.isEmpty {
                let outcomes = await settle(accepted)
                // By index: `zip` copied every item (a dozen reference counts) only to read it.
                for index in accepted.indices { conclude(accepted[index], outcomes[index]) }
            }
            let waiter = held.withLockedValue { held in
                held.count -= deliveries.count
                defer { held.waiter = nil }
                return held.waiter
            }
            waiter?.resume()
        }
    }

    /// Decodes `delivery` and appends it to `accepted` (built in place, not passed through a
    /// `Result`), or returns why it goes to the dead letters.
    private func decode(_ delivery: any TransportDelivery, into accepted: inout [_Accepted]) -> _DeadLetterReason? {
        if let headerError = delivery.headerError {
            let name = String(
                decoding: delivery.subject.utf8.dropFirst(configuration.prefix.utf8.count + 1), as: UTF8.self)
            return _DeadLetterReason(name: name, text: "undecodable headers: \(headerError)")
        }
        let headers = delivery.headers
        // The subject's last part only when the header is missing: it cost a string per event.
        let name =
            headers[NATSHeaderName.event]
            ?? String(decoding: delivery.subject.utf8.dropFirst(configuration.prefix.utf8.count + 1), as: UTF8.self)
        guard name == entry.name else {
            return _DeadLetterReason(name: name, text: "unknown event name '\(name)' on \(delivery.subject)")
        }
        if let version = headers[NATSHeaderName.eventVersion], Int(version) != entry.version {
            return _DeadLetterReason(
                name: name, text: "unsupported version \(version) of \(name) (registered: \(entry.version))")
        }
        let event: any Eventable
        do {
            // Decoded where the body lies: copying it into a `Data` first was an allocation and
            // a copy per event. The `Data` does not outlive the call.
            event = try delivery.payload.withUnsafeReadableBytes { bytes in
                guard let base = bytes.baseAddress, !bytes.isEmpty else { return try entry.decode(Data()) }
                return try entry.decode(
                    Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none))
            }
        } catch {
            return _DeadLetterReason(name: name, text: "undecodable body for \(name): \(error)")
        }
        let info = NATSDeliveryInfo(
            messageID: headers[NATSHeaderName.messageID] ?? "", subject: delivery.subject,
            deliveryCount: delivery.deliveryCount, source: headers[NATSHeaderName.source],
            traceparent: headers[NATSHeaderName.traceparent], headers: headers)
        accepted.append(_Accepted(delivery: delivery, event: event, info: info))
        return nil
    }

    private func conclude(_ item: _Accepted, _ outcome: (any Error)?) {
        do {
            guard let error = outcome else {
                try item.delivery.ack()
                counters.handled.add(1, ordering: .relaxed)
                return
            }
            let count = item.delivery.deliveryCount
            if count >= configuration.consumers.maxDeliver {
                sendToDeadLetters(
                    item.delivery,
                    reason: _DeadLetterReason(name: entry.name, text: "handler failed \(count) times: \(error)"))
                return
            }
            let delays = configuration.consumers.retryDelays
            let delay = delays.isEmpty ? nil : delays[min(max(count - 1, 0), delays.count - 1)]
            try item.delivery.nak(delay: delay)
            counters.retried.add(1, ordering: .relaxed)
        } catch {
            counters.settleFailures.add(1, ordering: .relaxed)
            logger.warning("cannot settle \(item.info.messageID): \(error); the broker will redeliver it")
        }
    }

    private func sendToDeadLetters(_ delivery: any TransportDelivery, reason: _DeadLetterReason) {
        do {
            try delivery.term()
        } catch {
            counters.settleFailures.add(1, ordering: .relaxed)
        }
        let name = NATSEventRegistry.isValidName(reason.name) ? reason.name : "unknown"
        // Every value is made writable: the reason may quote a handler's error text, and the
        // original's values came from the network.
        var headers = NATSHeaders(delivery.headers.map { ($0.name, Self.oneLine($0.value)) })
        let messageID = headers[NATSHeaderName.messageID]
        headers[NATSHeaderName.messageID] = "deadletter-" + (messageID ?? UUID().uuidString)
        headers[NATSHeaderName.error] = Self.oneLine(reason.text)
        if headers[NATSHeaderName.event] == nil { headers[NATSHeaderName.event] = Self.oneLine(reason.name) }
        let logger = self.logger
        do {
            try transport.publish(
                subject: configuration.deadLetterSubject(for: name), headers: headers, body: delivery.payload
            ) { result in
                if case .failure(let error) = result {
                    logger.error("dead-letter copy of \(messageID ?? "-") not stored: \(error)")
                }
            }
        } catch {
            logger.error("dead-letter copy of \(messageID ?? "-") not sent: \(error)")
        }
        counters.deadLettered.add(1, ordering: .relaxed)
        deadLetter(
            NATSDeadLetter(
                messageID: messageID, eventName: reason.name, subject: delivery.subject, reason: reason.text,
                deliveryCount: delivery.deliveryCount, payload: delivery.payload, rawHeaders: delivery.rawHeaders))
    }

    /// `text` as one header value: CR, LF and other control bytes become spaces, and it is cut to
    /// 1,024 bytes (on a character boundary).
    static func oneLine(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(min(text.utf8.count, 1_024))
        for scalar in text.unicodeScalars {
            guard result.utf8.count + scalar.utf8.count <= 1_024 else { break }
            result.unicodeScalars.append(scalar.value < 0x20 || scalar.value == 0x7F ? " " : scalar)
        }
        return result
    }
}

struct _DeadLetterReason: Error {
    var name: String
    var text: String
}
