// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Synchronization

/// Message ids in UUID form (version 4 layout), unique per process by a counter and across
/// processes by 74 random bits drawn once. `UUID()` opens the random device and formats
/// with `printf` on every call, which cost more than the rest of a publish.
///
/// An id is its counter value until it is written: into a frame with ``write(_:to:)``, as
/// text with ``string(_:)`` (for reports); the same 36 characters either way.
final class _MessageIDs: Sendable {
    /// The length of an id's text.
    static let length = 36

    private let high: UInt64
    private let low: UInt64
    private let counter = Atomic<UInt64>(0)

    init() {
        var generator = SystemRandomNumberGenerator()
        high = generator.next()
        low = generator.next()
    }

    /// The next id's counter value.
    func nextNumber() -> UInt64 {
        counter.add(1, ordering: .relaxed).newValue
    }

    /// The next id, `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`.
    func next() -> String {
        string(nextNumber())
    }

    /// The id of counter value `number`, as text.
    func string(_ number: UInt64) -> String {
        String(unsafeUninitializedCapacity: Self.length) { buffer in
            write(number, to: UnsafeMutableRawPointer(buffer.baseAddress!))
            return Self.length
        }
    }

    /// Writes the 36 characters of the id of counter value `number` at `bytes`.
    func write(_ number: UInt64, to bytes: UnsafeMutableRawPointer) {
        // 64 random bits, then 10 random bits beside the version and variant, then a 48-bit counter.
        let first = (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
        let second = ((low & 0x3FFF) | 0x8000) << 48 | (number & 0xFFFF_FFFF_FFFF)
        var position = 35
        var value = second
        for index in 0..<16 {
            if index == 12 {  // the dash between the 4th and 5th groups
                bytes.storeBytes(of: UInt8(ascii: "-"), toByteOffset: position, as: UInt8.self)
                position -= 1
            }
            bytes.storeBytes(of: Self.digit(value), toByteOffset: position, as: UInt8.self)
            value >>= 4
            position -= 1
        }
        // The dash between the 3rd and 4th groups.
        bytes.storeBytes(of: UInt8(ascii: "-"), toByteOffset: position, as: UInt8.self)
        position -= 1
        value = first
        for index in 0..<16 {
            if index == 4 || index == 8 {
                bytes.storeBytes(of: UInt8(ascii: "-"), toByteOffset: position, as: UInt8.self)
                position -= 1
            }
            bytes.storeBytes(of: Self.digit(value), toByteOffset: position, as: UInt8.self)
            value >>= 4
            position -= 1
        }
    }

    /// The upper-case hexadecimal digit of `value`'s lowest four bits.
    @inline(__always)
    private static func digit(_ value: UInt64) -> UInt8 {
        let nibble = UInt8(truncatingIfNeeded: value & 0xF)
        return nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") - 10 + nibble
    }
}
