// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// An object that keeps a set of weakly held observers and lets its own code reach them by protocol.
///
/// Observers are matched by the protocol the caller names, so one object can serve observers of
/// several protocols:
///
/// ```swift
/// withObservers { (observer: TemperatureObserver) in
///     observer.temperatureChanged(to: 21)
/// }
/// ```
public protocol Observable: AnyObject {
    /// Adds `observer`; adding the same object twice keeps one entry. The observer is held weakly.
    func addObserver(_ observer: AnyObject)

    /// Removes `observer`; removing an object that is not observing does nothing.
    func removeObserver(_ observer: AnyObject)

    /// Calls `body` once for every live observer that conforms to `ObserverProtocol`,
    /// in the order they were added.
    func withObservers<ObserverProtocol>(_ body: (ObserverProtocol) throws -> Void) rethrows
}
