// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// A delivery sink that holds deliveries for later, such as the serial consumer of an async
/// listener: ``EventBus/drain()`` waits for it as it waits for a mailbox.
protocol _DrainableSink: _DeliveryTarget {
    /// Runs `body` once every delivery accepted before this call has been handled or dropped.
    func addBarrier(_ body: @escaping @Sendable () -> Void)
}
