import Dispatch
import EventDrivenSwift
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Helpers shared by the concurrency and reliability suites (streams, async handlers, stress,
/// model-based and leak tests).
enum Stress {
    /// `true` when the tests run under ThreadSanitizer, which slows them down about tenfold;
    /// the heavy suites scale themselves down then.
    static let isUnderThreadSanitizer: Bool = {
        guard let program = dlopen(nil, RTLD_NOW) else { return false }
        defer { dlclose(program) }
        return dlsym(program, "__tsan_init") != nil
    }()

    /// An integer from the environment, or `fallback`.
    static func environment(_ name: String, default fallback: Int) -> Int {
        ProcessInfo.processInfo.environment[name].flatMap(Int.init) ?? fallback
    }
}

/// A list that handlers on any thread append to and tests read afterwards.
final class Recorder<Element: Sendable>: Sendable {
    private let storage = LockedValue<[Element]>([])

    func append(_ element: Element) { storage.withLock { $0.append(element) } }
    var values: [Element] { storage.withLock { $0 } }
    var count: Int { storage.withLock { $0.count } }
}

/// Holds a receiver busy: the handler that calls ``block()`` announces itself and waits until
/// the test calls ``open()``.
final class Gate: Sendable {
    private let entered = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)

    func block() {
        entered.signal()
        released.wait()
    }

    /// Waits, without blocking the cooperative pool, until a handler is inside ``block()``.
    func waitUntilEntered() async { await waitOffPool(entered) }

    func open() { released.signal() }
}

/// Waits for `semaphore` on a dispatch thread, so async tests never block the cooperative pool.
func waitOffPool(_ semaphore: DispatchSemaphore) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        DispatchQueue.global().async {
            semaphore.wait()
            continuation.resume()
        }
    }
}

/// Runs `body(index)` on `count` plain threads started together, and waits for all of them.
func runOnThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
    let group = DispatchGroup()
    let start = DispatchSemaphore(value: 0)
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            start.wait()
            body(index)
            group.leave()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    for _ in 0..<count { start.signal() }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        group.notify(queue: .global()) { continuation.resume() }
    }
}

/// Looks at `condition` again after yielding, for transitions that nothing announces (a task
/// finishing after its stream ended). Never a timed wait.
func eventually(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<200_000 {
        if condition() { return true }
        await Task.yield()
    }
    return condition()
}

/// Counts how many handlers run at once, to prove a context is serial.
final class OverlapProbe: Sendable {
    private let inside = Atomic<Int>(0)
    private let maximum = Atomic<Int>(0)

    func enter() {
        let now = inside.add(1, ordering: .acquiringAndReleasing).newValue
        maximum.max(now, ordering: .relaxed)
    }

    func leave() { inside.subtract(1, ordering: .acquiringAndReleasing) }

    var maximumOverlap: Int { maximum.load(ordering: .relaxed) }
}

/// An event carrying a number, for the concurrency and reliability suites.
struct Numbered: Eventable, Equatable {
    let value: Int
}

/// The errors a bus reports, collected.
func collectErrors(on bus: EventBus) -> Recorder<EventDrivenError> {
    let errors = Recorder<EventDrivenError>()
    bus.setErrorHandler { errors.append($0) }
    return errors
}
