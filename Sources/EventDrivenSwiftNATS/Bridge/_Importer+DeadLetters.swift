// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation
import NIOCore

/// Where the importer's messages go when they cannot be handled: a copy on the dead-letter
/// subject, stored before the original is terminated, and a report.
extension _Importer {
    /// Dead-letters the messages the broker gave up delivering without an acknowledgement.
    func deadLetterExhausted(_ consumer: any TransportConsumer) async {
        for await delivery in consumer.exhaustedDeliveries {
            let name =
                delivery.headers[NATSHeaderName.event]
                ?? String(decoding: delivery.subject.utf8.dropFirst(configuration.prefix.utf8.count + 1), as: UTF8.self)
            sendToDeadLetters(
                delivery,
                reason: _DeadLetterReason(
                    name: name,
                    text: "delivered \(delivery.deliveryCount) times without an acknowledgement (max_deliver)"),
                done: {})
        }
    }

    /// Stores a copy of `delivery` on `<prefix>.deadletter.<name>` (its publish acknowledged,
    /// retried with the same message id), and only then terminates it, reports it, and calls
    /// `done`. A copy that cannot be stored after every attempt leaves the original
    /// unterminated: sent back, so the broker keeps it, and the failure is logged and counted.
    func sendToDeadLetters(
        _ delivery: any TransportDelivery, reason: _DeadLetterReason, done: @escaping @Sendable () -> Void
    ) {
        let name = NATSEventRegistry.isValidName(reason.name) ? reason.name : "unknown"
        // Every value is made writable: the reason may quote a handler's error text, and the
        // original's values came from the network.
        var headers = NATSHeaders(delivery.headers.map { ($0.name, Self.oneLine($0.value)) })
        let messageID = headers[NATSHeaderName.messageID]
        headers[NATSHeaderName.messageID] = "deadletter-" + (messageID ?? UUID().uuidString)
        headers[NATSHeaderName.error] = Self.oneLine(reason.text)
        if headers[NATSHeaderName.event] == nil { headers[NATSHeaderName.event] = Self.oneLine(reason.name) }
        storeDeadLetter(
            delivery, subject: configuration.deadLetterSubject(for: name), headers: headers, attempt: 1
        ) { [self] stored in
            do {
                if stored {
                    try delivery.term()
                } else {
                    counters.settleFailures.add(1, ordering: .relaxed)
                    logger.error("dead-letter copy of \(messageID ?? "-") not stored; the message stays on the broker")
                    try delivery.nak(delay: configuration.consumers.retryDelays.last)
                }
            } catch {
                counters.settleFailures.add(1, ordering: .relaxed)
            }
            counters.deadLettered.add(1, ordering: .relaxed)
            deadLetter(
                NATSDeadLetter(
                    messageID: messageID, eventName: reason.name, subject: delivery.subject, reason: reason.text,
                    deliveryCount: delivery.deliveryCount, payload: delivery.payload, rawHeaders: delivery.rawHeaders))
            done()
        }
    }

    /// Publishes the dead-letter copy until the broker acknowledges it or the attempts
    /// (``NATSBridgeConfiguration/Consumers/publishAttempts``) run out, 100 ms × attempt apart.
    private func storeDeadLetter(
        _ delivery: any TransportDelivery, subject: String, headers: NATSHeaders, attempt: Int,
        then: @escaping @Sendable (Bool) -> Void
    ) {
        let attempts = max(1, configuration.consumers.publishAttempts)
        let retry: @Sendable (any Error) -> Void = { [self] error in
            guard attempt < attempts else {
                logger.warning("dead-letter copy not stored after \(attempt) attempts: \(error)")
                return then(false)
            }
            Task {
                try? await Task.sleep(for: .milliseconds(100 * attempt))
                storeDeadLetter(delivery, subject: subject, headers: headers, attempt: attempt + 1, then: then)
            }
        }
        do {
            try transport.publish(subject: subject, headers: headers, body: delivery.payload) { result in
                switch result {
                case .success: then(true)
                case .failure(let error): retry(error)
                }
            }
        } catch {
            retry(error)
        }
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
