// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

// Issue 25: a file that imports EventDrivenSwift and Observation means Observation's `Observable`
// (EventDrivenSwift no longer re-exports the seeds' `Observable` module, whose protocol of that
// name won before). This file compiling is half of the test.
import EventDrivenSwift
import Observation
import Testing

@Observable final class ObservedCounter {
    var value = 0
}

/// Counts the changes Observation reports.
final class ChangeCount: Sendable {
    private let count = LockedValue(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

/// A generic function over Observation's protocol, as an app writes one.
func track(_ model: some Observable, reading read: () -> Void, changes: ChangeCount) {
    withObservationTracking(read) { changes.add() }
}

@Suite("Observable means Observation's protocol beside EventDrivenSwift")
struct ObservableNameTests {
    @Test("an @Observable class passed as `some Observable` is tracked by Observation")
    func someObservableIsObservations() {
        let counter = ObservedCounter()
        let changes = ChangeCount()
        track(counter, reading: { _ = counter.value }, changes: changes)
        counter.value = 1
        #expect(changes.value == 1)
    }
}
