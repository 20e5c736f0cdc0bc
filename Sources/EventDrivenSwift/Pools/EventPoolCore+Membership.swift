// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import Synchronization

/// Growing, shrinking, hand-overs and stopping: everything that changes a pool's threads.
extension _EventPoolCore {
    // MARK: Growing and shrinking

    /// Starts the pool with `count` threads and arms the periodic scaling check.
    func start(threads count: Int) {
        scaling.withLock { _ in resize(to: count) }
        armPeriodicCheck()
    }

    /// Asks the scaler for a thread count and adds or retires threads to match.
    func evaluateScaling(now: DispatchTime) {
        scaling.withLock { scaler in
            guard !isStopped else { return }
            let target = max(1, scaler.threadCount(for: metrics, at: now))
            resize(to: target)
        }
    }

    /// Adds or retires threads until `target` receive events. Called with `scaling` held.
    private func resize(to target: Int) {
        let current = locked.withLock { $0.state.members }
        if target > current.count {
            let added = (current.count..<target).map { _ in makeMember() }
            let superseded = locked.withLock { locked -> _EventPoolSnapshot? in
                guard !locked.state.isStopped else { return nil }
                _ = locked.state.add(added)
                return installSnapshot(&locked)
            }
            guard let superseded else {
                for member in added { member.thread.cancel() }
                return
            }
            finishSuperseding(superseded)
        } else if target < current.count {
            // Retire the least loaded threads, the newest first among equals.
            let loads = current.enumerated().map { (index: $0.offset, load: $0.element.mailbox.load) }
            let chosen = loads.sorted { ($0.load, -$0.index) < ($1.load, -$1.index) }.prefix(current.count - target)
            let ids = Set(chosen.map { current[$0.index].id })
            let superseded = locked.withLock { locked -> _EventPoolSnapshot? in
                guard locked.state.retire(ids) != nil else { return nil }
                return installSnapshot(&locked)
            }
            finishSuperseding(superseded)
        }
    }

    /// Builds one thread whose callbacks register with the pool instead of the bus.
    private func makeMember() -> _EventPoolMember {
        let thread = _EventThreadRegistration.$override.withValue(self) { makeThread() }
        let id = locked.withLock { $0.state.makeID() }
        return _EventPoolMember(id: id, thread: thread)
    }

    private func armPeriodicCheck() {
        guard let interval = evaluationInterval else { return }
        let delay = DispatchTimeInterval.nanoseconds(Int(clamping: interval._nonnegativeNanoseconds))
        let handle = _EventScheduler.shared.schedule(at: .now() + delay) { [weak self] in
            // Off the scheduler thread: building threads runs user code.
            _BackgroundWork.run { [weak self] in self?.periodicCheck() }
        }
        let keep = locked.withLock { locked -> Bool in
            guard !locked.state.isStopped else { return false }
            locked.periodicCheck = handle
            return true
        }
        if !keep { handle.cancel() }
    }

    private func periodicCheck() {
        guard !isStopped else { return }
        evaluateScaling(now: .now())
        armPeriodicCheck()
    }

    // MARK: Deferred work

    /// No dispatch uses the snapshot of `generation` any more: run what was waiting for that.
    func snapshotReleased(_ generation: UInt64) {
        let work = locked.withLock { locked -> [@Sendable () -> Void] in
            var work: [@Sendable () -> Void] = []
            for deferred in locked.state.released(generation) {
                if deferred.isHandover {
                    let countdown = _Countdown(deferred.previous.count + 1) { [self] in handoverFinished() }
                    // Under the lock, before any retiree is told to stop, so every barrier runs.
                    for member in deferred.previous { member.mailbox.addBarrier { countdown.tick() } }
                    work.append { countdown.tick() }
                }
                for retiree in deferred.retirees {
                    work.append { [self] in _BackgroundWork.run { self.finishRetiring(retiree) } }
                }
                if let onReady = deferred.onReady { work.append(onReady) }
            }
            return work
        }
        for item in work { item() }
    }

    /// Lets a retired thread handle everything it accepted, then stops it.
    private func finishRetiring(_ retiree: _EventPoolMember) {
        retiree.thread.cancel(draining: true)
        let waiters = locked.withLock { locked -> [@Sendable () -> Void] in
            // Handled all it accepted. In the same step as it leaves `retiringMembers`, so the
            // pool's handled count never goes down (issue 13 item 10).
            locked.handledByRetired += max(retiree.handled, retiree.accepted.load(ordering: .relaxed))
            return locked.state.retireeFinished(retiree.id)
        }
        for waiter in waiters { waiter() }
    }

    /// The old threads of a hand-over are done; release the held events when none is pending.
    private func handoverFinished() {
        if locked.withLock({ $0.state.handoverFinished() }) {
            _BackgroundWork.run { [self] in flushHeld() }
        }
    }

    /// Routes the held events in arrival order; events arriving meanwhile queue behind them.
    private func flushHeld() {
        while true {
            let (step, snapshot) = locked.withLock { locked -> (State.FlushStep, _EventPoolSnapshot?) in
                let step = locked.state.nextFlush()
                guard case .route = step else { return (step, nil) }
                locked.snapshot.pin()
                return (step, locked.snapshot)
            }
            switch step {
            case .route(let events):
                guard let snapshot else { return }
                for event in events { route(event.envelope, key: event.key, through: snapshot) }
                if snapshot.unpin() { snapshotReleased(snapshot.generation) }
            case .paused:
                return
            case .done(let waiters):
                for waiter in waiters { waiter() }
                return
            }
        }
    }

    // MARK: Stopping

    /// Stops every thread; see ``EventPool/stop(draining:)``.
    ///
    /// Takes no `scaling` lock: a member's callback may call ``evaluateScaling(now:)`` while
    /// this waits for the members, and a resize that overlaps the stop finds the pool stopped
    /// (it adds no thread and retires none).
    func stop(draining: Bool) -> Int {
        let ready = DispatchSemaphore(value: 0)
        while true {
            // Draining, the pool stops only once no event is held for a hand-over, checked in
            // the same critical section as the stop, so that no held event is discarded.
            let handedOver = DispatchSemaphore(value: 0)
            let step = locked.withLock { locked -> StopStep in
                if draining, locked.state.waitForHandover({ handedOver.signal() }) { return .waitForHandover }
                guard let result = locked.state.stop(onReady: { ready.signal() }) else { return .alreadyStopped }
                // The members leave `metrics.threads` here: their count moves over in the same step.
                let counted = result.members.map(\.handled)
                locked.handledByRetired += counted.reduce(0, +)
                let old = installSnapshot(&locked)
                let forwarding = Array(locked.busSubscriptions.values)
                locked.busSubscriptions = [:]
                defer { locked.periodicCheck = nil }
                return .stopped(result, counted: counted, old, forwarding, locked.periodicCheck)
            }
            switch step {
            case .waitForHandover:
                handedOver.wait()
            case .alreadyStopped:
                return 0
            case .stopped(let result, let counted, let old, let forwarding, let periodicCheck):
                return finishStopping(
                    result, counted: counted, old, forwarding, periodicCheck, draining: draining, ready: ready)
            }
        }
    }

    private enum StopStep {
        /// Events are held for a hand-over: wait for it, then try again.
        case waitForHandover
        case alreadyStopped
        /// `counted`: what each member had handled when it left the metrics' threads.
        case stopped(State.StopResult, counted: [Int], _EventPoolSnapshot, [_Subscription], ScheduledEventHandle?)
    }

    /// Stops the threads of a pool that has just stopped; `ready` is signalled once no
    /// dispatch routes through an older snapshot.
    private func finishStopping(
        _ result: State.StopResult, counted: [Int], _ old: _EventPoolSnapshot, _ forwarding: [_Subscription],
        _ periodicCheck: ScheduledEventHandle?, draining: Bool, ready: DispatchSemaphore
    ) -> Int {
        periodicCheck?.cancel()
        for subscription in forwarding { subscription.cancel() }
        finishSuperseding(old)
        // An immediate stop first lets producers blocked on a full thread's mailbox push past its
        // bound: the wait below waits for their dispatches, and the stop discards and counts
        // what they pushed with the rest.
        if !draining { for member in result.members { member.mailbox.limit?.releaseProducers() } }
        // Dispatches already routing finish enqueuing before the threads stop.
        ready.wait()
        for waiter in result.waiters { waiter() }
        var discarded = result.held.count
        // Events held for a hand-over that the stop ended: discarded, each a dead letter.
        for held in result.held { bus.counters.settle(.removed, held.envelope) }
        for (member, counted) in zip(result.members, counted) {
            let skipped = member.thread.cancel(draining: draining)
            discarded += skipped
            // What the member handled after it was counted at the stop.
            let settled = max(0, member.accepted.load(ordering: .relaxed) - skipped) - counted
            if settled > 0 { locked.withLock { $0.handledByRetired += settled } }
        }
        // Threads retired by a scale-down keep handling what they had accepted; the pool
        // has stopped only once they have, so that every accepted event is accounted for.
        let retireesDone = DispatchSemaphore(value: 0)
        let retiring = locked.withLock { $0.state.waitForRetirees { retireesDone.signal() } }
        for _ in 0..<retiring { retireesDone.wait() }
        return discarded
    }

    /// `true` when called from a callback running on one of the pool's threads.
    var isOnMemberThread: Bool {
        guard let current = _ReceiverContext.current?.mailbox else { return false }
        return locked.withLock { $0.state.members.contains { $0.mailbox === current } }
    }
}

extension _EventPoolState {
    typealias StopResult = (members: [Member], held: [Held], waiters: [Waiter], superseded: UInt64)
}
