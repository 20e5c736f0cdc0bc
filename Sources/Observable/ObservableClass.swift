// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// A base class that is ``Observable``: subclass it to gain `addObserver`, `removeObserver`
/// and `withObservers`.
open class ObservableClass: Observable, @unchecked Sendable {  // observers live behind the lock inside `observers`
    /// The observers of this object.
    public let observers = ObserverRegistry()

    /// Creates an object with no observers.
    public init() {}

    /// Adds `observer`, held weakly.
    open func addObserver(_ observer: AnyObject) { observers.add(observer) }

    /// Removes `observer`.
    open func removeObserver(_ observer: AnyObject) { observers.remove(observer) }

    /// Calls `body` for every live observer that conforms to `ObserverProtocol`.
    public func withObservers<ObserverProtocol>(_ body: (ObserverProtocol) throws -> Void) rethrows {
        try observers.forEach(body)
    }
}
