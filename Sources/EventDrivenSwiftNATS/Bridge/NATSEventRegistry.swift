// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Foundation
import NIOConcurrencyHelpers

/// The event types a bridge carries, each with a name (its subject's last part) and a version.
///
/// ```swift
/// let events = NATSEventRegistry()
/// try events.register(OrderPlaced.self, name: "orders.placed", version: 2)
/// try events.registerDecoder(for: OrderPlaced.self, version: 1, from: OrderPlacedV1.self) { $0.upgraded }
/// ```
///
/// Bodies are JSON; dates are ISO 8601 text with fractional seconds
/// (`2026-11-26T01:02:03.456Z`) by default, which any language reads. Give the registry
/// encoders of your own to change that. A decoder registered for an older version converts what a
/// publisher not yet upgraded sends, so that old publishers and new consumers work side by side
/// during a rolling upgrade.
public final class NATSEventRegistry: Sendable {
    /// One registered type.
    public struct Entry: Sendable {
        /// Its name on the wire.
        public let name: String
        /// The version of its encoding.
        public let version: Int
        /// The Swift type.
        public let type: any Eventable.Type
        let encode: @Sendable (any Eventable) throws -> Data
        let decode: @Sendable (Data) throws -> any Eventable
        /// The decoder of an older version of the event, converting to the current type, if one
        /// was registered (looked up when a message needs it).
        let olderDecoder: @Sendable (Int) -> (@Sendable (Data) throws -> any Eventable)?
    }

    private struct Tables: Sendable {
        var byType: [ObjectIdentifier: Entry] = [:]
        var byName: [String: Entry] = [:]
        /// Decoders of older versions, by name and version.
        var older: [String: [Int: @Sendable (Data) throws -> any Eventable]] = [:]
    }

    private let tables = NIOLockedValueBox(Tables())
    private let encoder: JSONEncoder
    private let decoder: JSONDecoder

    /// An empty registry that encodes and decodes with the given coders: by default
    /// ``defaultEncoder()`` and ``defaultDecoder()``, ISO 8601 dates.
    public init(
        encoder: JSONEncoder = NATSEventRegistry.defaultEncoder(),
        decoder: JSONDecoder = NATSEventRegistry.defaultDecoder()
    ) {
        self.encoder = encoder
        self.decoder = decoder
    }

    /// A `JSONEncoder` that writes dates as ISO 8601 text with fractional seconds, in UTC.
    public static func defaultEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.formatted(Self.iso8601WithFractions))
        }
        return encoder
    }

    /// A `JSONDecoder` that reads dates as ISO 8601 text, with or without fractional seconds
    /// (or as a number: seconds since 2001, what earlier versions of the bridge wrote).
    public static func defaultDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            if let seconds = try? container.decode(Double.self) { return Date(timeIntervalSinceReferenceDate: seconds) }
            let text = try container.decode(String.self)
            if let date = try? Date(text, strategy: Self.iso8601WithFractions) { return date }
            if let date = try? Date(text, strategy: Date.ISO8601FormatStyle()) { return date }
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO 8601 date: \(text)")
        }
        return decoder
    }

    private static let iso8601WithFractions = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// Registers `type` under `name` and `version`.
    /// - Throws: ``NATSBridgeError/invalidEventName(_:)`` and
    ///   ``NATSBridgeError/duplicateRegistration(_:)``.
    public func register<E: Eventable & Codable>(_ type: E.Type, name: String, version: Int = 1) throws {
        guard Self.isValidName(name) else { throw NATSBridgeError.invalidEventName(name) }
        let encoder = self.encoder
        let decoder = self.decoder
        let tables = self.tables
        let entry = Entry(
            name: name, version: version, type: type,
            encode: { event in try encoder.encode(event as! E) },
            decode: { data in try decoder.decode(E.self, from: data) },
            olderDecoder: { version in tables.withLockedValue { $0.older[name]?[version] } })
        try tables.withLockedValue { tables in
            if let existing = tables.byName[name], existing.type != type {
                throw NATSBridgeError.duplicateRegistration("'\(name)' is already \(existing.type)")
            }
            if let existing = tables.byType[ObjectIdentifier(type)], existing.name != name {
                throw NATSBridgeError.duplicateRegistration("\(type) is already '\(existing.name)'")
            }
            tables.byType[ObjectIdentifier(type)] = entry
            tables.byName[name] = entry
        }
    }

    /// Reads messages of an older `version` of `type`'s encoding as `Old`, converted by
    /// `convert`: during a rolling upgrade, consumers of the new version handle what publishers
    /// of the old one still send, instead of dead-lettering it.
    /// - Throws: ``NATSBridgeError/unregisteredEventType(_:)`` when `type` is not registered;
    ///   ``NATSBridgeError/duplicateRegistration(_:)`` for its current version.
    public func registerDecoder<E: Eventable & Codable, Old: Decodable & Sendable>(
        for type: E.Type, version: Int, from old: Old.Type, convert: @escaping @Sendable (Old) throws -> E
    ) throws {
        let entry = try entry(for: type)
        guard version != entry.version else {
            throw NATSBridgeError.duplicateRegistration("version \(version) of '\(entry.name)' is its current one")
        }
        let decoder = self.decoder
        tables.withLockedValue { tables in
            tables.older[entry.name, default: [:]][version] = { data in
                try convert(decoder.decode(Old.self, from: data))
            }
        }
    }

    /// The entry of `type`.
    /// - Throws: ``NATSBridgeError/unregisteredEventType(_:)``.
    public func entry(for type: any Eventable.Type) throws -> Entry {
        guard let entry = tables.withLockedValue({ $0.byType[ObjectIdentifier(type)] }) else {
            throw NATSBridgeError.unregisteredEventType(String(reflecting: type))
        }
        return entry
    }

    /// The entry registered as `name`, if any.
    public func entry(named name: String) -> Entry? {
        tables.withLockedValue { $0.byName[name] }
    }

    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && !name.hasPrefix(".") && !name.hasSuffix(".") && !name.contains("..")
            && NATSCommandEncoder.isValidToken(name) && !name.contains("*") && !name.contains(">")
    }
}
