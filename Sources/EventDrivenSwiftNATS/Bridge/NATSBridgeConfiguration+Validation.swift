// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

extension NATSBridgeConfiguration {
    /// Throws unless the bridge can work with this configuration: ``prefix`` (and a dead-letter
    /// stream's `subjectPrefix`) is one or more dot-separated subject tokens without wildcards,
    /// whitespace or control bytes; ``streamName`` (and a dead-letter stream's name) is a name
    /// JetStream takes; ``Consumers/fetchExpiry`` and ``Consumers/reopenDelay`` are above zero, and
    /// ``Consumers/maxReopenDelay`` is not below ``Consumers/reopenDelay``.
    ///
    /// ``NATSBridge/init(bus:events:server:configuration:logger:)`` and ``NATSBridge/run()``
    /// call it, so that such a value is refused before anything is sent.
    /// - Throws: ``NATSBridgeError/invalidConfiguration(_:)`` naming the first invalid value.
    public func validate() throws {
        if let problem = problem { throw NATSBridgeError.invalidConfiguration(problem) }
    }

    /// What ``validate()`` refuses, in words, or `nil`.
    var problem: String? {
        if !NATSCommandEncoder.isValidSubject(prefix, wildcards: false) {
            return "prefix \(prefix.debugDescription) is not a subject without wildcards (`*`, `>`), whitespace "
                + "or empty tokens"
        }
        if !Self.isValidStreamName(streamName) {
            return "stream name \(streamName.debugDescription) is not a JetStream stream name (not empty; no `.`, "
                + "`*`, `>`, `/`, `\\`, whitespace or control bytes)"
        }
        if let deadLetterStream {
            if !Self.isValidStreamName(deadLetterStream.name) {
                return "dead-letter stream name \(deadLetterStream.name.debugDescription) is not a JetStream "
                    + "stream name (not empty; no `.`, `*`, `>`, `/`, `\\`, whitespace or control bytes)"
            }
            if !NATSCommandEncoder.isValidSubject(deadLetterStream.subjectPrefix, wildcards: false) {
                return "dead-letter subject prefix \(deadLetterStream.subjectPrefix.debugDescription) is not a "
                    + "subject without wildcards (`*`, `>`), whitespace or empty tokens"
            }
        }
        if consumers.fetchExpiry <= .zero {
            return "fetchExpiry \(consumers.fetchExpiry) is not above zero: no fetch could wait for a message"
        }
        if consumers.reopenDelay <= .zero {
            return "reopenDelay \(consumers.reopenDelay) is not above zero: a consumer lost at every fetch would be "
                + "opened again at full speed"
        }
        if consumers.maxReopenDelay < consumers.reopenDelay {
            return "maxReopenDelay \(consumers.maxReopenDelay) is below reopenDelay \(consumers.reopenDelay)"
        }
        return nil
    }

    /// Whether JetStream takes `name` as a stream's name: not empty, and none of `.`, `*`, `>`
    /// (it is a token of the API's subjects), `/`, `\` (it names a directory), whitespace or a
    /// control byte.
    static func isValidStreamName(_ name: String) -> Bool {
        !name.isEmpty
            && !name.utf8.contains { byte in
                byte <= 0x20 || byte == 0x7F || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "*")
                    || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "\\")
            }
    }
}
