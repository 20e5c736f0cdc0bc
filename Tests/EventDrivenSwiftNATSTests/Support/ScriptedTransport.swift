// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import NIOConcurrencyHelpers
import NIOCore

@testable import EventDrivenSwiftNATS

/// A transport that hands the bridge the deliveries a test made, once, and records how each was
/// settled and what was published (dead-letter copies, checked as the client checks them).
final class ScriptedTransport: EventTransport {
    struct Spec {
        var headers = NATSHeaders([("Eds-Event", "orders.placed"), ("Eds-Event-Version", "1")])
        var headerError: NATSError? = nil
        var rawHeaders: String? = nil
        var body = #"{"orderID":1,"customerID":2,"amount":3}"#
        var deliveryCount = 1
        /// The delivery's ``TransportDelivery/stableID`` (a JetStream one is `<stream>:<sequence>`).
        var stableID = ""
    }

    struct Log: Sendable {
        /// The settlements ("nak 0") and each consumer's `finish`, in the order they came.
        var timeline: [String] = []
        /// The settlements alone, in order.
        var settlements: [String] { timeline.filter { $0 != "finish" } }
        var published: [(subject: String, headers: NATSHeaders, body: String)] = []
        /// The headers of every publish attempt, failed ones included.
        var publishAttempts: [NATSHeaders] = []
        var failuresLeft = 0
    }

    let log: NIOLockedValueBox<Log>
    private let deliveries: [ScriptedDelivery]

    /// `failingPublishes`: how many publishes fail (no acknowledgement) before they succeed.
    init(_ specs: [Spec], failingPublishes: Int = 0) {
        let log = NIOLockedValueBox(Log(failuresLeft: failingPublishes))
        self.log = log
        deliveries = specs.enumerated().map { index, spec in
            ScriptedDelivery(
                id: index, subject: "eds.orders.placed", headers: spec.headers, payload: ByteBuffer(string: spec.body),
                deliveryCount: spec.deliveryCount, headerError: spec.headerError,
                rawHeaders: spec.rawHeaders.map { ByteBuffer(string: $0) }, stableID: spec.stableID, log: log)
        }
    }

    func start() async throws {}
    func stop() async {}

    func publish(
        subject: String, headers: NATSHeaders, body: ByteBuffer,
        completion: @escaping @Sendable (Result<Bool, any Error>) -> Void
    ) throws {
        try NATSClient.check(subject: subject, replyTo: nil, headers: headers)
        let fails = log.withLockedValue { log -> Bool in
            log.publishAttempts.append(headers)
            guard log.failuresLeft == 0 else {
                log.failuresLeft -= 1
                return true
            }
            log.published.append((subject, headers, String(buffer: body)))
            return false
        }
        completion(fails ? .failure(NATSError.timeout) : .success(false))
    }

    func openConsumer(subject: String, group: String?) async throws -> any TransportConsumer {
        Consumer(deliveries: deliveries, log: log)
    }

    final class Consumer: TransportConsumer {
        private struct State {
            var pending: [ScriptedDelivery]?
            var accepted = 0
            var finished = false
            var waiter: CheckedContinuation<[any TransportDelivery], Never>?
        }

        private let state: NIOLockedValueBox<State>
        private let log: NIOLockedValueBox<Log>

        init(deliveries: [ScriptedDelivery], log: NIOLockedValueBox<Log>) {
            state = NIOLockedValueBox(State(pending: deliveries))
            self.log = log
        }

        func fetch(batch: Int, expires: Duration) async throws {
            try await Task.sleep(for: .milliseconds(20))
        }

        func nextDeliveries() async -> [any TransportDelivery] {
            await withCheckedContinuation { continuation in
                let ready = state.withLockedValue { state -> [any TransportDelivery]? in
                    if let pending = state.pending {
                        state.pending = nil
                        state.accepted = pending.count
                        return pending
                    }
                    if state.finished { return [] }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }

        var isLost: Bool { false }
        /// The script's deliveries once handed over (all at once), none before.
        var accepted: Int { state.withLockedValue { $0.accepted } }

        func finish() {
            log.withLockedValue { $0.timeline.append("finish") }
            let waiter = state.withLockedValue { state in
                state.finished = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: [])
        }
    }
}

struct ScriptedDelivery: TransportDelivery {
    let id: Int
    let subject: String
    let headers: NATSHeaders
    let payload: ByteBuffer
    let deliveryCount: Int
    let headerError: NATSError?
    let rawHeaders: ByteBuffer?
    let stableID: String
    let log: NIOLockedValueBox<ScriptedTransport.Log>

    func ack() throws { settled("ack") }
    func nak(delay: Duration?) throws { settled("nak") }
    func term() throws { settled("term") }

    private func settled(_ how: String) { log.withLockedValue { $0.timeline.append("\(how) \(id)") } }
}
