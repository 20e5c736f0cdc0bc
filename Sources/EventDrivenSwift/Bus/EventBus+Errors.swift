// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Logging

extension EventBus {
    /// What the bus has done with its events so far.
    public var statistics: EventBusStatistics { counters.snapshot }

    /// Sets the handler that receives every error the bus reports (misuse, dispatch after
    /// shutdown, a handler that threw, a full mailbox). Pass `nil` to remove it.
    ///
    /// Errors are logged through ``logger`` either way, as swift-log asks of libraries: at
    /// `.debug` while a handler is set (the handler has them; nothing is written twice), at
    /// `.info` otherwise, where dispatches refused after shutdown are logged at the 1st, 10th,
    /// 100th… with the count so far (every one is counted in ``EventBusStatistics/rejected``
    /// and reaches the handler). To silence or route them, pass a `Logger` with the level and handler
    /// you want to ``init(label:logger:)``.
    public func setErrorHandler(_ handler: (@Sendable (EventDrivenError) -> Void)?) {
        let box = handler.map(_ErrorHandler.init)
        let replaced = errorHandler.withLock { current in
            defer { current = box }
            return current
        }
        _ = consume replaced
    }

    /// Logs `error` and passes it to the error handler.
    func report(_ error: EventDrivenError) {
        // The handler is boxed: reading a closure stored at another abstraction through `inout`
        // wraps it in a new thunk on every read, so reports would grow slower, then overflow.
        let handler = errorHandler.withLock { $0 }
        if let handler {
            logger.debug("\(error.description)", metadata: ["bus": "\(label)"])
            handler.body(error)
        } else if error.code == .busShutDown {
            // A producer that goes on after shutdown would write a line per event: the 1st, 10th,
            // 100th… are logged with the count so far; each one is counted in `rejected`.
            let count = counters.shutDownReports.wrappingAdd(1, ordering: .relaxed).newValue
            guard Self.isPowerOfTen(count) else { return }
            let suffix =
                count == 1 ? "" : " (\(count) dispatches refused after shutdown so far; see statistics.rejected)"
            logger.info("\(error.description)\(suffix)", metadata: ["bus": "\(label)"])
        } else {
            logger.info("\(error.description)", metadata: ["bus": "\(label)"])
        }
    }

    private static func isPowerOfTen(_ value: Int) -> Bool {
        var power = 1
        while power < value && power <= Int.max / 10 { power *= 10 }
        return power == value
    }
}
