// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Crypto
import Foundation

/// NATS's key encoding (NKEYS): an Ed25519 key as base32 text whose first letter says what it
/// is (`U` a user, `A` an account, `O` an operator, `S` a seed), with a CRC-16 at the end.
/// Written here from the format's description: a prefix byte (or two, for a seed), the 32 key
/// bytes, the CRC-16/XMODEM of both in little-endian order, all in RFC 4648 base32 without
/// padding.
enum _NKeys {
    /// The kind of key, the high five bits of its first byte.
    enum Kind: UInt8, Sendable {
        case seed = 144  // 18 << 3: "S"
        case operatorKey = 112  // 14 << 3: "O"
        case account = 0  // "A"
        case user = 160  // 20 << 3: "U"
    }

    /// Why a seed or key could not be read. The text of the key never appears in it.
    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    /// An Ed25519 key pair made from a seed.
    struct KeyPair {
        let kind: Kind
        let privateKey: Curve25519.Signing.PrivateKey

        /// A new random key pair of `kind`.
        init(random kind: Kind) {
            self.kind = kind
            self.privateKey = Curve25519.Signing.PrivateKey()
        }

        /// The key pair of an encoded seed (`SU…`, `SA…`, `SO…`).
        init(seed: String) throws {
            let raw = try _NKeys.decode(seed.trimmingCharacters(in: .whitespacesAndNewlines))
            guard raw.count == 34, raw[0] & 0xF8 == Kind.seed.rawValue else {
                throw Invalid(description: "not an NKEY seed")
            }
            let kindByte = (raw[0] & 0x07) << 5 | (raw[1] & 0xF8) >> 3
            guard let kind = Kind(rawValue: kindByte), kind != .seed else {
                throw Invalid(description: "an NKEY seed of an unknown kind")
            }
            self.kind = kind
            do {
                self.privateKey = try Curve25519.Signing.PrivateKey(rawRepresentation: raw[2...])
            } catch {
                throw Invalid(description: "an NKEY seed that is not an Ed25519 key")
            }
        }

        /// The public key, encoded (`U…`, `A…`, `O…`).
        var publicKey: String { _NKeys.encode([kind.rawValue] + privateKey.publicKey.rawRepresentation) }

        /// The seed, encoded.
        var seed: String {
            let first = Kind.seed.rawValue | kind.rawValue >> 5
            let second = (kind.rawValue & 0x1F) << 3
            return _NKeys.encode([first, second] + privateKey.rawRepresentation)
        }

        /// The Ed25519 signature of `bytes`.
        func sign(_ bytes: some DataProtocol) throws -> Data {
            try privateKey.signature(for: bytes)
        }
    }

    /// Base32 of `payload` followed by its CRC-16, little-endian.
    static func encode(_ payload: [UInt8]) -> String {
        let crc = crc16(payload)
        return base32([UInt8](payload + [UInt8(crc & 0xFF), UInt8(crc >> 8)]))
    }

    /// The payload of an encoded key, its CRC checked.
    static func decode(_ text: String) throws -> [UInt8] {
        guard let raw = base32Decode(text), raw.count > 2 else { throw Invalid(description: "not base32") }
        let payload = Array(raw[..<(raw.count - 2)])
        let crc = UInt16(raw[raw.count - 2]) | UInt16(raw[raw.count - 1]) << 8
        guard crc == crc16(payload) else { throw Invalid(description: "an NKEY with a bad checksum") }
        return payload
    }

    /// CRC-16/XMODEM: polynomial 0x1021, initial value 0, no reflection.
    static func crc16(_ bytes: [UInt8]) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 {
                crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1
            }
        }
        return crc
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// RFC 4648 base32, without padding.
    static func base32(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 8 + 4) / 5)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | UInt32(byte)
            bits += 8
            while bits >= 5 {
                out.append(alphabet[Int((buffer >> UInt32(bits - 5)) & 0x1F)])
                bits -= 5
            }
        }
        if bits > 0 { out.append(alphabet[Int((buffer << UInt32(5 - bits)) & 0x1F)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of unpadded RFC 4648 base32 text; `nil` for a character outside the alphabet.
    static func base32Decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count * 5 / 8)
        var buffer: UInt32 = 0
        var bits = 0
        for character in text.utf8 {
            let value: UInt8
            switch character {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = character - UInt8(ascii: "A")
            case UInt8(ascii: "2")...UInt8(ascii: "7"): value = character - UInt8(ascii: "2") + 26
            default: return nil
            }
            buffer = (buffer << 5 | UInt32(value)) & 0xFFFF
            bits += 5
            if bits >= 8 {
                out.append(UInt8((buffer >> UInt32(bits - 8)) & 0xFF))
                bits -= 8
            }
        }
        return out
    }

    /// Base64 with the URL alphabet and no padding, as NATS signs and JWTs are written.
    static func base64URL(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
