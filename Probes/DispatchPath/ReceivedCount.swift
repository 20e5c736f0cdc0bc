import Synchronization

/// How many events the probe's listener received.
final class ReceivedCount: Sendable {
    private let count = Atomic<Int>(0)

    func add() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}
