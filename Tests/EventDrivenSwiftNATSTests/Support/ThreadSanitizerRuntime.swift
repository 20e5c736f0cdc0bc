// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation

/// `true` when the ThreadSanitizer runtime is loaded (`swift test --sanitize=thread`), where
/// every memory access is instrumented: a test whose point is an amount of input, not threads,
/// may sit that run out.
let natsUnderThreadSanitizer: Bool = {
    // The program's own handle searches it and everything it loaded, on every platform.
    guard let program = dlopen(nil, RTLD_NOW) else { return false }
    defer { dlclose(program) }
    return dlsym(program, "__tsan_init") != nil
}()

/// `true` when `EDS_NATS_FLOOD_TESTS=1` and not under ThreadSanitizer: the flood tests, which keep
/// a core busy for seconds (a million PINGs in a debug build), run alone then, as CI runs them,
/// instead of beside the suite, whose timed connections they starved (a 500 ms connect timed
/// out in one CI run).
let natsFloodTestsEnabled =
    ProcessInfo.processInfo.environment["EDS_NATS_FLOOD_TESTS"] == "1" && !natsUnderThreadSanitizer
