import EventDrivenSwift
import Foundation
import NIOConcurrencyHelpers

/// The event types a bridge carries, each with a name (its subject's last part) and a version.
///
/// ```swift
/// let events = NATSEventRegistry()
/// try events.register(OrderPlaced.self, name: "orders.placed", version: 1)
/// ```
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
    }

    private struct Tables: Sendable {
        var byType: [ObjectIdentifier: Entry] = [:]
        var byName: [String: Entry] = [:]
    }

    private let tables = NIOLockedValueBox(Tables())
    private static let encoder = JSONEncoder()
    private static let decoder = JSONDecoder()

    /// An empty registry.
    public init() {}

    /// Registers `type` under `name` and `version`.
    /// - Throws: ``NATSBridgeError/invalidEventName(_:)`` and
    ///   ``NATSBridgeError/duplicateRegistration(_:)``.
    public func register<E: Eventable & Codable>(_ type: E.Type, name: String, version: Int = 1) throws {
        guard Self.isValidName(name) else { throw NATSBridgeError.invalidEventName(name) }
        let entry = Entry(
            name: name, version: version, type: type,
            encode: { event in try Self.encoder.encode(event as! E) },
            decode: { data in try Self.decoder.decode(E.self, from: data) })
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
