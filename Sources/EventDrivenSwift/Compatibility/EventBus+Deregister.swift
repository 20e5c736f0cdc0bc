extension EventBus {
    /// SwiftEventBus's name for ``unregister(_:)``, which it forwards to.
    @discardableResult
    public func deregister(_ consumer: any EventConsumer) -> Bool {
        unregister(consumer)
    }
}
