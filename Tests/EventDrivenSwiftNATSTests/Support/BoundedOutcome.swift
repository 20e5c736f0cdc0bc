// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Testing

@testable import EventDrivenSwiftNATS

/// What a call did within a bounded wait: returned, threw, or had not finished.
enum BoundedOutcome: Sendable, CustomStringConvertible {
    case returned
    case threw(any Error)
    case unfinished

    /// The error it threw, if it threw.
    var error: (any Error)? {
        if case .threw(let error) = self { return error }
        return nil
    }

    var description: String {
        switch self {
        case .returned: "returned"
        case .threw(let error): "threw \(error)"
        case .unfinished: "had not finished"
        }
    }
}

/// Runs `body` in a task and waits at most `limit` for it (polled, not slept): a call that hangs
/// fails the test that asked instead of stopping the run. The task is cancelled when it has not
/// finished.
func outcome(within limit: Duration, _ body: @escaping @Sendable () async throws -> Void) async -> BoundedOutcome {
    let result = Collected<BoundedOutcome>()
    let task = Task {
        do {
            try await body()
            result.append(.returned)
        } catch {
            result.append(.threw(error))
        }
    }
    guard await poll(timeout: limit, { !result.values.isEmpty }), let first = result.values.first else {
        task.cancel()
        return .unfinished
    }
    return first
}

/// Shuts each of `bridges` down and expects every one's `run()` task (`runs`) to return within
/// 10 s.
func expectShutDown(
    _ bridges: [NATSBridge], runs: [Task<Void, any Error>], sourceLocation: SourceLocation = #_sourceLocation
) async {
    for bridge in bridges { bridge.shutdown() }
    let stopped = await outcome(within: .seconds(10)) {
        for run in runs { try await run.value }
    }
    #expect("\(stopped)" == "returned", "the bridges' shutdown \(stopped)", sourceLocation: sourceLocation)
}
