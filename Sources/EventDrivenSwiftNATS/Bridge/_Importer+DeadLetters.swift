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
    /// retried with the same message id), and only then terminates it, reports it, counts it in
    /// ``NATSBridgeStatistics/deadLettered``, and calls `done`. A copy that cannot be stored after
    /// every attempt leaves the original unterminated: sent back, so the broker keeps it; the
    /// failure is logged and counted in ``NATSBridgeStatistics/settleFailures`` only (it is no
    /// dead letter), then `done` is called.
    ///
    /// The copy's message id is `deadletter-<original id>`, the original's `Nats-Msg-Id` or, for
    /// a message without one, its ``TransportDelivery/stableID`` (`<stream>:<sequence>`): each
    /// dead-lettering of one message carries the same id, so the stream drops a repeat.
    func sendToDeadLetters(
        _ delivery: any TransportDelivery, reason: _DeadLetterReason, done: @escaping @Sendable () -> Void
    ) {
        let name = NATSEventRegistry.isValidName(reason.name) ? reason.name : "unknown"
        let (copied, droppedNames) = Self.writableCopy(of: delivery.headers)
        var headers = copied
        let messageID = headers[NATSHeaderName.messageID]
        let originalID = messageID ?? (delivery.stableID.isEmpty ? UUID().uuidString : delivery.stableID)
        headers[NATSHeaderName.messageID] = Self.oneLine("deadletter-" + originalID)
        headers[NATSHeaderName.error] = Self.oneLine(reason.text)
        if headers[NATSHeaderName.event] == nil { headers[NATSHeaderName.event] = Self.oneLine(reason.name) }
        if !droppedNames.isEmpty {
            headers[NATSHeaderName.droppedHeaders] = Self.oneLine(droppedNames.joined(separator: ","))
        }
        storeDeadLetter(
            delivery, subject: configuration.deadLetterSubject(for: name), headers: headers, attempt: 1
        ) { [self] stored in
            defer { done() }
            guard stored else {
                counters.settleFailures.add(1, ordering: .relaxed)
                logger.error(
                    "dead-letter copy of \(messageID ?? originalID) not stored; the message stays on the broker")
                do {
                    try delivery.nak(delay: configuration.consumers.retryDelays.last)
                } catch {
                    counters.settleFailures.add(1, ordering: .relaxed)
                }
                return
            }
            do {
                try delivery.term()
            } catch {
                // The copy is stored: the broker redelivers the original, whose next copy the
                // stream drops as a duplicate.
                counters.settleFailures.add(1, ordering: .relaxed)
            }
            counters.deadLettered.add(1, ordering: .relaxed)
            deadLetter(
                NATSDeadLetter(
                    messageID: messageID, eventName: reason.name, subject: delivery.subject, reason: reason.text,
                    deliveryCount: delivery.deliveryCount, payload: delivery.payload, rawHeaders: delivery.rawHeaders))
        }
    }

    /// `headers` as the dead letter can carry them: every value made one line (the original's
    /// values came from the network), and the fields whose names the encoder refuses (not
    /// printable ASCII without a colon, which the parser lets through) left out, the names of the
    /// first 64 of them returned percent-encoded.
    static func writableCopy(of headers: NATSHeaders) -> (headers: NATSHeaders, dropped: [String]) {
        var copy = NATSHeaders(reservingCapacity: headers.fields.count + 3)
        var dropped: [String] = []
        for (name, value) in headers {
            if NATSCommandEncoder.headerProblem(NATSHeaders([(name, "")])) == nil {
                copy.append(name, oneLine(value))
            } else if dropped.count < 64 {
                dropped.append(percentEncoded(name))
            }
        }
        return (copy, dropped)
    }

    /// `text` with every byte outside printable ASCII, and space, `%`, `,` and `:`, as `%XX`.
    static func percentEncoded(_ text: String) -> String {
        var result = ""
        for byte in text.utf8.prefix(256) {
            if byte > 0x20, byte < 0x7F, byte != UInt8(ascii: "%"), byte != UInt8(ascii: ","),
                byte != UInt8(ascii: ":")
            {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                result +=
                    "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return result
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
