// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// The error an ``EventRecorder`` wait throws when it was asked for something it cannot wait for.
public enum EventRecorderMisuse: Error, Sendable, Equatable, CustomStringConvertible {
    /// ``EventRecorder/waitFor(count:timeout:)`` was asked for a negative number of events.
    case negativeCount(Int)

    /// For example: `waitFor(count:) needs a count of at least 0, not -1`.
    public var description: String {
        switch self {
        case .negativeCount(let count): "waitFor(count:) needs a count of at least 0, not \(count)"
        }
    }
}
