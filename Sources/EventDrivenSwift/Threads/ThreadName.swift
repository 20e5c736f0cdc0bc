// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

#if canImport(Darwin)
    import Darwin
#else
    internal import CEventDrivenSwiftShims
#endif

/// The names the library's threads carry in the system (`top -H`, gdb, perf): `bus:role`,
/// within Linux's limit of 15 bytes, so that setting one never fails and each says which bus.
///
/// The role (the listener thread's `listener`, an EventThread's class name) keeps up to 8
/// bytes and the bus label the rest, each cut at a character boundary: `orders:listener`,
/// `orders:Charger`. The longer descriptive names that errors and interceptors use are kept
/// apart (``_MailboxThread/name``).
enum _ThreadName {
    /// The longest name Linux's `pthread_setname_np` takes, in bytes (16 with the terminating NUL).
    static let limit = 15

    /// The system name of a thread with `role` on the bus labelled `bus`.
    static func make(bus: String, role: String) -> String {
        let shortRole = prefix(of: role, bytes: 8)
        let shortBus = prefix(of: bus, bytes: limit - 1 - shortRole.utf8.count)
        return shortBus + ":" + shortRole
    }

    /// Names the current thread `name` (cut to ``limit`` bytes).
    static func setCurrent(_ name: String) {
        let fitting = prefix(of: name, bytes: limit)
        #if canImport(Darwin)
            _ = pthread_setname_np(fitting)
        #elseif os(Linux)
            _ = c_eds_set_thread_name(fitting)
        #endif
    }

    /// The longest prefix of `text` of whole characters that fits in `bytes` bytes of UTF-8.
    private static func prefix(of text: String, bytes: Int) -> String {
        var result = ""
        var used = 0
        for character in text {
            let size = character.utf8.count
            guard used + size <= bytes else { break }
            result.append(character)
            used += size
        }
        return result
    }
}
