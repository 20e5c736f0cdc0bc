// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

extension EventBus {
    /// SwiftEventBus's name for ``unregister(_:)``, which it forwards to.
    @discardableResult
    public func deregister(_ consumer: any EventConsumer) -> Bool {
        unregister(consumer)
    }
}
