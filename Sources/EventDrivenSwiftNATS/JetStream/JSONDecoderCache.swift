// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

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
