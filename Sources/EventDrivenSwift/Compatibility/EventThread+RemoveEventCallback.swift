// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

extension EventThread {
    /// Removes the callback `handle` was returned for, as `handle.cancel()` does.
    @available(*, deprecated, message: "call cancel() on the handle")
    public func removeEventCallback(_ handle: EventListenerHandle) {
        handle.cancel()
    }
}
