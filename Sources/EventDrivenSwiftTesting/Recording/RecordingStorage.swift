// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift

/// The lock around a recorder's state machine; it resumes waiters outside the lock.
final class _RecordingStorage<Record: Sendable>: Sendable {
    private typealias Machine = _RecordingStateMachine<Record, CheckedContinuation<Void, any Error>>

    private let state = LockedValue(Machine())
    private let nextWaitID = LockedValue<UInt64>(0)

    func append(_ record: Record) {
        let ready = state.withLock { $0.record(record) }
        for waiter in ready { waiter.resume() }
    }

    var records: [Record] { state.withLock { $0.records } }
    var count: Int { state.withLock { $0.records.count } }

    func removeAll() {
        state.withLock { $0.removeAllRecords() }
    }

    /// Returns once at least `count` records exist; throws `CancellationError` if the task is
    /// cancelled first.
    func waitUntil(count: Int) async throws {
        let id = nextWaitID.withLock { id in
            defer { id += 1 }
            return id
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                switch state.withLock({ $0.wait(id: id, untilCount: count, continuation) }) {
                case .resume(let waiter): waiter.resume()
                case .cancel(let waiter): waiter.resume(throwing: CancellationError())
                case .wait: break
                }
            }
        } onCancel: {
            state.withLock { $0.cancel(id: id) }?.resume(throwing: CancellationError())
        }
        state.withLock { $0.forget(id: id) }
    }

    /// The longest a wait sleeps: about a century, which `Task.sleep` can represent.
    static var longestTimeout: Duration { .seconds(3_155_760_000) }

    /// Returns `true` once at least `count` records exist, `false` when `timeout` passed first.
    /// Throws `CancellationError` if the task is cancelled first.
    func waitUntil(count: Int, timeout: Duration) async throws -> Bool {
        if self.count >= count { return true }
        return try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await self.waitUntil(count: count)
                return true
            }
            group.addTask {
                // `Task.sleep` traps on a duration its clock cannot represent (`.seconds(Int64.max)`):
                // a timeout beyond a century waits as long as a century does.
                try await Task.sleep(for: min(timeout, Self.longestTimeout))
                return false
            }
            defer { group.cancelAll() }
            return try await group.next() ?? false
        }
    }

    /// Takes the position of the record the next call of `next` returns.
    func reserveNext() -> Int {
        state.withLock { $0.reserveNext() }
    }

    /// Gives back a position whose wait failed, so that the next call of `next` takes it again.
    func unreserve(_ index: Int) {
        state.withLock { $0.unreserve(index) }
    }

    /// The record at `index`, if it exists.
    func record(at index: Int) -> Record? {
        state.withLock { $0.records.indices.contains(index) ? $0.records[index] : nil }
    }
}
