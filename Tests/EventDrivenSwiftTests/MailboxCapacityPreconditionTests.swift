// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Testing

/// A thread class whose bounded mailbox could hold nothing.
private final class NoRoom: EventThread, @unchecked Sendable {  // no state of its own beyond EventThread's
    override class var mailboxPolicy: EventMailboxPolicy { .bounded(capacity: 0, whenFull: .dropNewest) }
}

@Suite("A bounded mailbox's capacity below 1 is a documented precondition (issue 26, item 10; SPEC R3)")
struct MailboxCapacityPreconditionTests {
    @Test("making a thread whose class declares .bounded(capacity: 0) stops the process, as documented")
    func zeroCapacityStopsTheProcess() async {
        await #expect(processExitsWith: .failure) {
            _ = NoRoom(bus: EventBus(label: "no-room"))
        }
    }
}
