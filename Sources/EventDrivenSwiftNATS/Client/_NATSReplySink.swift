// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// Takes the replies of many requests of a ``NATSClient``, each known by a key of its own
/// choosing: one object instead of a closure (and the allocations it captures) per request.
protocol _NATSReplySink: AnyObject, Sendable {
    /// The reply to request `key`, or why there is none (timeout, lost connection, close, no
    /// responders). Called once per request, on an event loop or the thread that found the
    /// error, with no lock of the client held: keep it short.
    func reply(to key: UInt64, _ result: Result<NATSMessage, NATSError>)
}
