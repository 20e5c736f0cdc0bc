// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A list that handlers on any thread append to and tests read afterwards.
final class CoreRecorder<Element: Sendable>: Sendable {
    private let storage = LockedValue<[Element]>([])

    func append(_ element: Element) {
        storage.withLock { $0.append(element) }
    }

    var values: [Element] { storage.withLock { $0 } }
    var count: Int { storage.withLock { $0.count } }
}

/// Holds a receiver busy: the handler that calls ``block()`` announces itself and waits until
/// the test calls ``open()``. Events dispatched meanwhile wait in the receiver's mailbox.
final class CoreGate: Sendable {
    private let entered = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)

    /// Called by a handler: announces that the receiver is busy, then waits for ``open()``.
    func block() {
        entered.signal()
        released.wait()
    }

    /// ``block()`` for an async handler: it suspends instead of holding one of the cooperative
    /// pool's threads (two tests blocking both of them held up every other test for tens of
    /// seconds under ThreadSanitizer).
    func suspend() async {
        entered.signal()
        await coreWait(released)
    }

    /// Waits, without blocking the cooperative pool, until a handler is inside ``block()``.
    func waitUntilEntered() async {
        await coreWait(entered)
    }

    func open() {
        released.signal()
    }
}

/// Waits for `semaphore` on a dispatch thread, so that async tests never block the
/// cooperative thread pool (on a queue of its own, not the global queue: see
/// ``poolWait(_:count:seconds:)``).
func coreWait(_ semaphore: DispatchSemaphore) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        DispatchQueue(label: "test-wait").async {
            semaphore.wait()
            continuation.resume()
        }
    }
}

/// Runs `body` on a thread of its own (not a dispatch or cooperative thread) and waits for it.
func coreOnPlainThread<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
    await withCheckedContinuation { (continuation: CheckedContinuation<Result, Never>) in
        let thread = Thread { continuation.resume(returning: body()) }
        thread.start()
    }
}

/// Polls `condition`, yielding between looks, for states that no callback announces.
/// Used only for short internal transitions (a drainer parking); never as a timed wait.
func coreEventually(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<1_000_000 {
        if condition() { return true }
        await Task.yield()
    }
    return condition()
}

/// An identifier of the current OS thread, comparable across threads.
func coreThreadID() -> UInt {
    #if canImport(Darwin)
        UInt(bitPattern: Int(bitPattern: pthread_self()))
    #else
        UInt(pthread_self())
    #endif
}

/// Counts how many handlers run at once, to prove a context is serial.
final class CoreOverlapProbe: Sendable {
    private let inside = Atomic<Int>(0)
    private let maximum = Atomic<Int>(0)

    func run(_ body: () -> Void) {
        let now = inside.add(1, ordering: .acquiringAndReleasing).newValue
        maximum.max(now, ordering: .relaxed)
        body()
        inside.subtract(1, ordering: .acquiringAndReleasing)
    }

    /// The most handlers that were ever inside at once.
    var maximumOverlap: Int { maximum.load(ordering: .relaxed) }
}

/// Collects the errors a bus reports.
func coreCollectErrors(on bus: EventBus) -> CoreRecorder<EventDrivenError> {
    let errors = CoreRecorder<EventDrivenError>()
    bus.setErrorHandler { errors.append($0) }
    return errors
}

/// Runs `body(0..<count)` on `count` threads of their own, started together, and waits for all.
func coreOnThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
    let group = DispatchGroup()
    let start = DispatchSemaphore(value: 0)
    // Each thread releases what its body wrote, and the caller acquires it: ThreadSanitizer does
    // not see the ordering that the group's notification and the continuation's resumption give
    // (it reported the threads' writes racing with the caller's next ones, in 1 CI run).
    let finished = CoreCounter()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            start.wait()
            body(index)
            finished.increment()
            group.leave()
        }
        thread.start()
    }
    for _ in 0..<count { start.signal() }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        group.notify(queue: .global()) { continuation.resume() }
    }
    _ = finished.count
}

/// An atomic counter that escaping handlers can capture.
final class CoreCounter: Sendable {
    private let value = Atomic<Int>(0)

    @discardableResult
    func increment() -> Int { value.add(1, ordering: .acquiringAndReleasing).newValue }

    var count: Int { value.load(ordering: .acquiring) }
}

/// `true` when the ThreadSanitizer runtime is loaded (`swift test --sanitize=thread`): stress
/// tests then dispatch a tenth of their events, since every memory access is instrumented.
let coreUnderThreadSanitizer: Bool = {
    // The program's own handle searches it and everything it loaded, on every platform.
    guard let program = dlopen(nil, RTLD_NOW) else { return false }
    defer { dlclose(program) }
    return dlsym(program, "__tsan_init") != nil
}()

/// Holds the main queue with a block of its own, and returns once it is held; the main queue
/// runs again once the returned semaphore is signalled.
func holdMainQueue() async -> DispatchSemaphore {
    let held = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    DispatchQueue.main.async {
        held.signal()
        release.wait()
    }
    await coreWait(held)
    return release
}
