import Dispatch
import EventDrivenSwift
import Foundation
import Synchronization

/// A list that handlers on any thread append to; tests read it afterwards.
final class ChannelLog<Element: Sendable>: Sendable {
    private let storage = LockedValue<[Element]>([])

    func append(_ element: Element) {
        storage.withLock { $0.append(element) }
    }

    var values: [Element] { storage.withLock { $0 } }
    var count: Int { storage.withLock { $0.count } }
}

/// Waits for `semaphore` on a dispatch thread, so that async tests never block the cooperative
/// pool. The long limit only keeps a broken build from hanging the run; it is not a timing check.
func channelWait(_ semaphore: DispatchSemaphore) async -> Bool {
    await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        DispatchQueue.global().async {
            continuation.resume(returning: semaphore.wait(timeout: .now() + 30) == .success)
        }
    }
}

/// Runs `body(index)` on `count` threads at once and waits for all of them.
func channelOnThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        DispatchQueue.global().async {
            DispatchQueue.concurrentPerform(iterations: count, execute: body)
            continuation.resume()
        }
    }
}

/// An identifier of the current OS thread, comparable across threads.
func channelThreadID() -> UInt {
    #if canImport(Darwin)
        UInt(bitPattern: Int(bitPattern: pthread_self()))
    #else
        UInt(pthread_self())
    #endif
}

/// A key whose hash is the same for every value, so that only `==` tells keys apart.
struct CollidingKey: Hashable, Sendable {
    let id: Int
    static func == (lhs: Self, rhs: Self) -> Bool { lhs.id == rhs.id }
    func hash(into hasher: inout Hasher) { hasher.combine(0) }
}
