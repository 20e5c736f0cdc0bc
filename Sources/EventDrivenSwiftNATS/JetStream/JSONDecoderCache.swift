import Foundation

/// Decoders for API responses; `JSONDecoder` is thread-safe once configured.
enum JSONDecoderCache {
    static let decoder = JSONDecoder()
}

extension JSONDecoder {
    func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        try decode(type, from: Data(bytes))
    }
}
