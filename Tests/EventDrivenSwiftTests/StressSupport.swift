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
