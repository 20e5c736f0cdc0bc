// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// The error handler of a bus, in a box that is read by reference.
final class _ErrorHandler: Sendable {
    let body: @Sendable (EventDrivenError) -> Void

    init(_ body: @escaping @Sendable (EventDrivenError) -> Void) {
        self.body = body
    }
}
