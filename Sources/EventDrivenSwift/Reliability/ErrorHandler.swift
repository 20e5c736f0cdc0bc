/// The error handler of a bus, in a box that is read by reference.
final class _ErrorHandler: Sendable {
    let body: @Sendable (EventDrivenError) -> Void

    init(_ body: @escaping @Sendable (EventDrivenError) -> Void) {
        self.body = body
    }
}
