import Synchronization

/// Message ids in UUID form (version 4 layout), unique per process by a counter and across
/// processes by 74 random bits drawn once. `UUID()` opens the random device and formats
/// with `printf` on every call, which cost more than the rest of a publish.
final class _MessageIDs: Sendable {
    private let high: UInt64
    private let low: UInt64
    private let counter = Atomic<UInt64>(0)

    init() {
        var generator = SystemRandomNumberGenerator()
        high = generator.next()
        low = generator.next()
    }

    /// The next id, `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`.
    func next() -> String {
        let count = counter.add(1, ordering: .relaxed).newValue
        // 64 random bits, then 10 random bits beside the version and variant, then a 48-bit counter.
        let first = (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
        let second = ((low & 0x3FFF) | 0x8000) << 48 | (count & 0xFFFF_FFFF_FFFF)
        var bytes = [UInt8](repeating: UInt8(ascii: "-"), count: 36)
        let digits = Array("0123456789ABCDEF".utf8)
        var position = 35
        var value = second
        for index in 0..<16 {
            if index == 12 { position -= 1 }  // the dash between the 4th and 5th groups
            bytes[position] = digits[Int(value & 0xF)]
            value >>= 4
            position -= 1
        }
        position -= 1  // the dash between the 3rd and 4th groups
        value = first
        for index in 0..<16 {
            if index == 4 || index == 8 { position -= 1 }
            bytes[position] = digits[Int(value & 0xF)]
            value >>= 4
            position -= 1
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
