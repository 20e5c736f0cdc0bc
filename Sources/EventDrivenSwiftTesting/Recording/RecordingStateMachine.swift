// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// What a recorder holds: the records in arrival order, the position of ``EventRecorder/next(timeout:)``,
/// and who waits for how many records.
///
/// A pure value: every transition returns the waiters to resume, and the storage resumes them
/// outside its lock. `Waiter` is a continuation in the storage and a plain value in the tests.
struct _RecordingStateMachine<Record, Waiter> {
    private(set) var records: [Record] = []
    /// The index after every position ``reserveNext()`` has taken and not been given back.
    private(set) var cursor = 0
    /// Positions below ``cursor`` whose wait failed, for the next calls of `next` to take first.
    private var givenBack: Set<Int> = []
    private var waiters: [(id: UInt64, count: Int, waiter: Waiter)] = []
    /// Waits cancelled before they were registered (their task was cancelled meanwhile).
    private var cancelledEarly: Set<UInt64> = []

    /// How a wait ends at once, or that it must wait.
    enum WaitAction {
        case resume(Waiter)
        case cancel(Waiter)
        case wait
    }

    /// Appends `record`. Returns the waiters that now have as many records as they wanted.
    mutating func record(_ record: Record) -> [Waiter] {
        records.append(record)
        guard !waiters.isEmpty else { return [] }
        let count = records.count
        let ready = waiters.filter { $0.count <= count }.map(\.waiter)
        waiters.removeAll { $0.count <= count }
        return ready
    }

    /// Registers `waiter` until `count` records exist, unless they exist already or the wait
    /// was cancelled first.
    mutating func wait(id: UInt64, untilCount count: Int, _ waiter: Waiter) -> WaitAction {
        if cancelledEarly.remove(id) != nil { return .cancel(waiter) }
        if records.count >= count { return .resume(waiter) }
        waiters.append((id, count, waiter))
        return .wait
    }

    /// Removes the wait `id`. Returns its waiter if it was still waiting; otherwise remembers the
    /// id, in case the wait has not been registered yet.
    mutating func cancel(id: UInt64) -> Waiter? {
        if let index = waiters.firstIndex(where: { $0.id == id }) {
            return waiters.remove(at: index).waiter
        }
        cancelledEarly.insert(id)
        return nil
    }

    /// Forgets an early cancellation of `id` that never met its wait (the wait ended first).
    mutating func forget(id: UInt64) {
        cancelledEarly.remove(id)
    }

    /// Takes the position of the next record for `next`: the lowest position given back, or
    /// else the one after every position taken.
    mutating func reserveNext() -> Int {
        if let lowest = givenBack.min() {
            givenBack.remove(lowest)
            return lowest
        }
        defer { cursor += 1 }
        return cursor
    }

    /// Gives back a position taken by ``reserveNext()`` whose wait failed, whichever order the
    /// failed waits end in: the next call of `next` takes the lowest position given back.
    mutating func unreserve(_ index: Int) {
        guard index < cursor else { return }
        givenBack.insert(index)
        while givenBack.remove(cursor - 1) != nil { cursor -= 1 }
    }

    /// Forgets every record; `next` starts again with the next record to arrive.
    mutating func removeAllRecords() {
        records.removeAll()
        cursor = 0
        givenBack = []
    }
}

extension _RecordingStateMachine: Sendable where Record: Sendable, Waiter: Sendable {}
