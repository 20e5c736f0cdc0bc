// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Testing
import ThreadSafeSwift

/// Compiles only for a `Sendable` type: the conformances below are checked by the compiler.
private func requireSendable<T: Sendable>(_: T.Type) {}

/// A class with mutable state and no lock: not `Sendable`.
private final class Unsynchronized {
    var count = 0
}

@Suite("LockedValue and ThreadSafeSemaphore are Sendable only for Sendable values (issue 12 §1)")
struct LockedValueSendableTests {
    @Test("Issue 12 §1: LockedValue and ThreadSafeSemaphore of a Sendable value are Sendable")
    func sendableForSendableValues() {
        requireSendable(LockedValue<Int>.self)
        requireSendable(LockedValue<[String: [Int]]>.self)
        requireSendable(ThreadSafeSemaphore<Int>.self)
        requireSendable(ThreadSafeSemaphore<String?>.self)
        // `requireSendable(LockedValue<Unsynchronized>.self)` no longer compiles: a value that is
        // not Sendable could be handed out of `withLock` to two threads at once.
    }

    @Test("Issue 12 §1: a LockedValue of a Sendable value is shared by concurrent tasks")
    func sharedAcrossTasks() async {
        let total = LockedValue(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<1_000 { total.withLock { $0 += 1 } }
                }
            }
        }
        #expect(total.withLock { $0 } == 4_000)
    }

    @Test("Issue 12 §1: a LockedValue of a non-Sendable value still works within one context")
    func nonSendableValueWithinOneContext() {
        let box = LockedValue(Unsynchronized())
        box.withLock { $0.count += 2 }
        #expect(box.withLock { $0.count } == 2)

        @ThreadSafeSemaphore var counter = Unsynchronized()
        _counter.withLock { $0.count += 1 }
        #expect(counter.count == 1)
    }
}
