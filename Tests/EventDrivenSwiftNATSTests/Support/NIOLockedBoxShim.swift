// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import NIOConcurrencyHelpers

/// `NIOLockedValueBox` under a short name for the tests' collectors.
final class NIOLockedBoxShim<Value: Sendable>: Sendable {
    private let box: NIOLockedValueBox<Value>
    init(_ value: Value) { box = NIOLockedValueBox(value) }
    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R { try box.withLockedValue(body) }
}
