// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

@_spi(Testing) import EventDrivenSwift

/// A clock that moves only when a test moves it, for scheduled events and event ages.
///
/// ```swift
/// struct ReminderEvent: Eventable {}
///
/// let clock = ManualClock()
/// clock.schedule(ReminderEvent(), on: bus, after: .seconds(30))
/// clock.advance(by: .seconds(29))    // nothing dispatched
/// clock.advance(by: .seconds(1))     // ReminderEvent dispatched, before advance returns
/// ```
///
/// What it covers:
/// - Events scheduled **through the clock** (``schedule(_:on:at:method:priority:)``) are
///   dispatched inside ``advance(by:)`` or ``advance(to:)``, never on their own: each one whose
///   due time the advance reaches, in due order (ties in the order they were scheduled),
///   including those that handlers schedule while the clock advances. On a
///   `EventBus.deterministic(label:)` bus their handlers have run when `advance` returns;
///   on another bus, `await bus.drain()` waits for them. A bus that has shut down gets none.
/// - Event ages: ``dispatch(_:on:age:method:priority:)`` dispatches an event that is already
///   `age` old, so `.youngerThan` listeners and `EventMetadata.age` see that age.
///
/// What it does not cover:
/// - Events scheduled with the library's own `schedule(after:)`, `scheduleQueue(at:)`,
///   `scheduleStack(at:)` or `EventBus.schedule(_:at:)`: those use the process's scheduler thread and the real
///   monotonic clock. Code that you want to test with a manual clock should take the clock's
///   `schedule` as a dependency, or schedule through a protocol of your own.
/// - The times in `EventMetadata` stay on the monotonic clock that the library reads at
///   delivery (`DispatchTime.now()`), so that `.youngerThan` and `EventMetadata.age` stay
///   right: an event the clock fires is stamped with the real time it fires at (its age is 0,
///   as for a scheduled event fired on time), and its `EventMetadata.scheduledTime` lies as
///   far before that as the event waited on this clock. Compare differences
///   (`dispatchTime` − `scheduledTime`, `age`), not a metadata time with ``now``.
/// - Ages still grow with real time between dispatch and delivery (microseconds on a
///   deterministic bus): keep a margin between an age you dispatch and the limit of `.youngerThan`.
public final class ManualClock: Sendable {
    private struct Pending: Sendable {
        let handle: Handle
        /// Dispatches the event, given how long it waited on this clock in nanoseconds; `false`
        /// when its bus is gone or shut down.
        let fire: @Sendable (_ waited: UInt64) -> Bool
        let scheduledAt: UInt64
    }

    private let state: LockedValue<_ManualClockStateMachine<Pending>>

    /// A clock that reads `now` until it is advanced; by default the current time.
    public init(now: DispatchTime = .now()) {
        state = LockedValue(_ManualClockStateMachine(now: now.uptimeNanoseconds))
    }

    /// The clock's current time.
    public var now: DispatchTime { DispatchTime(uptimeNanoseconds: state.withLock { $0.now }) }

    /// How many scheduled dispatches have neither fired nor been cancelled.
    public var pendingCount: Int {
        state.withLock { state in
            state.remove { $0.handle.isCancelled }
            return state.pendingCount
        }
    }

    /// When the earliest pending dispatch is due, or `nil` when none is pending.
    public var nextDueTime: DispatchTime? {
        state.withLock { state in
            state.remove { $0.handle.isCancelled }
            return state.nextDue.map { DispatchTime(uptimeNanoseconds: $0) }
        }
    }

    // MARK: Scheduling

    /// Dispatches `event` on `bus` when the clock reaches `time`, as `EventBus.schedule(_:at:)`
    /// does on the real clock: the `ServiceContext` current here is current again around the
    /// dispatch.
    ///
    /// A `time` the clock has already reached fires at the next ``advance(by:)`` (even by zero).
    /// - Returns: A handle that cancels the dispatch while it is pending.
    @discardableResult
    public func schedule<E: Eventable>(
        _ event: E, on bus: EventBus, at time: DispatchTime, method: EventDispatchMethod = .queue,
        priority: EventPriority = .normal
    ) -> Handle {
        let handle = Handle(dueTime: time)
        let context = _CapturedServiceContext()
        let fire: @Sendable (UInt64) -> Bool = { [weak bus] waited in
            guard let bus, !bus.isShutDown else { return false }
            let firedAt = DispatchTime.now()
            context.withContext {
                bus.dispatch(
                    event,
                    testingMetadata: EventMetadata(
                        testingPriority: priority, method: method, dispatchTime: firedAt,
                        scheduledTime: firedAt.earlier(by: waited)))
            }
            return true
        }
        state.withLock { state in
            state.schedule(Pending(handle: handle, fire: fire, scheduledAt: state.now), due: time.uptimeNanoseconds)
        }
        return handle
    }

    /// Dispatches `event` on `bus` once the clock has advanced by `delay` from ``now``.
    @discardableResult
    public func schedule<E: Eventable>(
        _ event: E, on bus: EventBus, after delay: Duration, method: EventDispatchMethod = .queue,
        priority: EventPriority = .normal
    ) -> Handle {
        schedule(event, on: bus, at: now.later(by: delay.nanoseconds), method: method, priority: priority)
    }

    // MARK: Advancing

    /// Moves the clock forward by `duration`, dispatching every scheduled event that becomes due,
    /// in due order, before it returns.
    /// - Returns: How many events it dispatched.
    @discardableResult
    public func advance(by duration: Duration) -> Int {
        precondition(duration >= .zero, "a manual clock cannot go backwards (advance(by: \(duration)))")
        return advance(to: now.later(by: duration.nanoseconds))
    }

    /// Moves the clock forward to `time` (never backwards), dispatching every scheduled event
    /// due by then, in due order, before it returns. Each event is dispatched with the clock at
    /// its due time, so a handler that schedules again schedules from there.
    ///
    /// Advance from one task at a time.
    /// - Returns: How many events it dispatched (not counting those whose bus had shut down).
    @discardableResult
    public func advance(to time: DispatchTime) -> Int {
        let limit = time.uptimeNanoseconds
        var fired = 0
        while let (pending, now) = takeDue(through: limit) {
            guard pending.handle.fire(), pending.fire(now &- min(now, pending.scheduledAt)) else { continue }
            fired += 1
        }
        state.withLock { $0.advance(to: limit) }
        return fired
    }

    /// The earliest pending dispatch due by `limit`, and the clock's time once moved to it.
    private func takeDue(through limit: UInt64) -> (pending: Pending, now: UInt64)? {
        state.withLock { state in state.takeDue(through: limit).map { ($0, state.now) } }
    }

    // MARK: Ages

    /// Dispatches `event` on `bus` as if it had been dispatched `age` ago, so that listeners
    /// that are `.youngerThan` a limit below `age` skip it (counted as expired), and
    /// `EventMetadata.age` reports at least `age`.
    public func dispatch<E: Eventable>(
        _ event: E, on bus: EventBus, age: Duration, method: EventDispatchMethod = .queue,
        priority: EventPriority = .normal
    ) {
        precondition(age >= .zero, "an event's age cannot be negative (\(age))")
        bus.dispatch(
            event,
            testingMetadata: EventMetadata(
                testingPriority: priority, method: method,
                dispatchTime: DispatchTime.now().earlier(by: age.nanoseconds),
                scheduledTime: nil))
    }
}

extension DispatchTime {
    /// This time plus `nanoseconds`, saturating.
    fileprivate func later(by nanoseconds: UInt64) -> DispatchTime {
        let (sum, overflow) = uptimeNanoseconds.addingReportingOverflow(nanoseconds)
        return DispatchTime(uptimeNanoseconds: overflow ? .max : sum)
    }

    /// This time minus `nanoseconds`, never before the first nanosecond of uptime.
    fileprivate func earlier(by nanoseconds: UInt64) -> DispatchTime {
        DispatchTime(uptimeNanoseconds: uptimeNanoseconds > nanoseconds ? uptimeNanoseconds - nanoseconds : 1)
    }
}

extension Duration {
    /// The duration in whole nanoseconds, saturating at `UInt64.max`; negative durations count
    /// as zero.
    fileprivate var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        let (total, overflowAgain) = whole.addingReportingOverflow(UInt64(max(0, attoseconds) / 1_000_000_000))
        return overflow || overflowAgain ? .max : total
    }
}
