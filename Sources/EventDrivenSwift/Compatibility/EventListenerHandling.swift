// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// EventDrivenSwift 5.2's name for a listener's handle (`var listenerHandle: EventListenerHandling?`),
/// kept so that code keeps compiling: ``EventListenerHandle`` is one. New code names the
/// ``EventSubscription`` protocol, which every handle of the library adopts, or the handle's type.
public protocol EventListenerHandling: EventSubscription, AnyObject {}

extension EventListenerHandling {
    /// EventDrivenSwift 5.2's name for ``EventSubscription/cancel()``.
    @available(*, deprecated, renamed: "cancel()")
    public func remove() {
        cancel()
    }
}
