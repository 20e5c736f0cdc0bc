// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Foundation

extension _Importer {
    /// Decodes `delivery` and appends it to `accepted` (built in place, not passed through a
    /// `Result`), or returns why it goes to the dead letters.
    func decode(_ delivery: any TransportDelivery, into accepted: inout [_Accepted]) -> _DeadLetterReason? {
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
        if let format = headers[NATSHeaderName.format], format != NATSHeaderName.currentFormat {
            return _DeadLetterReason(
                name: name,
                text: "unsupported wire format \(format) (this bridge writes and reads \(NATSHeaderName.currentFormat))"
            )
        }
        // The current version's decoder, or an older version's (a publisher not yet upgraded).
        var decode = entry.decode
        if let text = headers[NATSHeaderName.eventVersion], let version = Int(text), version != entry.version {
            guard let older = entry.olderDecoder(version) else {
                return _DeadLetterReason(
                    name: name, text: "unsupported version \(version) of \(name) (registered: \(entry.version))")
            }
            decode = older
        } else if let text = headers[NATSHeaderName.eventVersion], Int(text) == nil {
            return _DeadLetterReason(name: name, text: "unreadable version of \(name)")
        }
        let event: any Eventable
        do {
            // Decoded where the body lies: copying it into a `Data` first was an allocation and
            // a copy per event. The `Data` does not outlive the call.
            event = try delivery.payload.withUnsafeReadableBytes { bytes in
                guard let base = bytes.baseAddress, !bytes.isEmpty else { return try decode(Data()) }
                return try decode(
                    Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none))
            }
        } catch {
            return _DeadLetterReason(name: name, text: "undecodable body for \(name): \(error)")
        }
        let info = NATSDeliveryInfo(
            messageID: headers[NATSHeaderName.messageID] ?? delivery.stableID, subject: delivery.subject,
            deliveryCount: delivery.deliveryCount, source: headers[NATSHeaderName.source],
            traceparent: headers[NATSHeaderName.traceparent], headers: headers)
        accepted.append(_Accepted(delivery: delivery, event: event, info: info))
        return nil
    }
}
