import EventDrivenSwift
import Foundation
import NIOConcurrencyHelpers
import NIOCore

/// Publishes events with acknowledgement: every event gets one `Nats-Msg-Id`, kept on each
/// retry so the stream stores it once; a publish that is never acknowledged is reported.
final class _Exporter: Sendable {
    private struct InFlight: Sendable {
        var count = 0
        /// Each waits until fewer than its limit are in flight.
        var waiters: [(limit: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let transport: any EventTransport
    private let configuration: NATSBridgeConfiguration
    private let counters: _BridgeCounters
    private let report: @Sendable (NATSBridgeError) -> Void
    private let inFlight = NIOLockedValueBox(InFlight())
    private let messageIDs = _MessageIDs()

    init(
        transport: any EventTransport, configuration: NATSBridgeConfiguration, counters: _BridgeCounters,
        report: @escaping @Sendable (NATSBridgeError) -> Void
    ) {
        self.transport = transport
        self.configuration = configuration
        self.counters = counters
        self.report = report
    }

    /// What every message of one event type shares, worked out once per type rather than per
    /// event.
    struct Template: Sendable {
        let entry: NATSEventRegistry.Entry
        let subject: String
        let version: String
        let source: String
    }

    /// The template of `entry`'s messages.
    func template(for entry: NATSEventRegistry.Entry) -> Template {
        Template(
            entry: entry, subject: configuration.subject(for: entry.name), version: String(entry.version),
            source: configuration.source)
    }

    /// Publishes `event`; `completion`, if given, gets the outcome after the last attempt.
    func export(
        _ event: any Eventable, entry: NATSEventRegistry.Entry,
        completion: (@Sendable (Result<Void, NATSBridgeError>) -> Void)? = nil
    ) {
        export(event, template(for: entry), completion: completion)
    }

    /// Publishes `event` with a template made by ``template(for:)``.
    func export(
        _ event: any Eventable, _ template: Template,
        completion: (@Sendable (Result<Void, NATSBridgeError>) -> Void)? = nil
    ) {
        let entry = template.entry
        let messageID = messageIDs.next()
        let body: Data
        do {
            body = try entry.encode(event)
        } catch {
            let failure = NATSBridgeError.publishFailed(
                messageID: messageID, event: entry.name, reason: "cannot encode: \(error)")
            counters.publishFailures.add(1, ordering: .relaxed)
            report(failure)
            completion?(.failure(failure))
            return
        }
        var headers = NATSHeaders(reservingCapacity: 5)
        headers.append(NATSHeaderName.messageID, messageID)
        headers.append(NATSHeaderName.event, entry.name)
        headers.append(NATSHeaderName.eventVersion, template.version)
        headers.append(NATSHeaderName.source, template.source)
        if let traceparent = NATSTraceContext.traceparent {
            headers.append(NATSHeaderName.traceparent, traceparent)
        }
        counters.exported.add(1, ordering: .relaxed)
        inFlight.withLockedValue { $0.count += 1 }
        let publish = _Publish(
            subject: template.subject, headers: headers, body: ByteBuffer(bytes: body),
            messageID: messageID, event: entry.name, completion: completion)
        attempt(publish, number: 1)
    }

    /// Returns once fewer than `limit` publishes are waiting for their acknowledgement (1: none).
    func waitUntilInFlight(below limit: Int) async {
        await withCheckedContinuation { continuation in
            let isBelow = inFlight.withLockedValue { state -> Bool in
                if state.count < limit { return true }
                state.waiters.append((limit, continuation))
                return false
            }
            if isBelow { continuation.resume() }
        }
    }

    private struct _Publish: Sendable {
        var subject: String
        var headers: NATSHeaders
        var body: ByteBuffer
        var messageID: String
        var event: String
        var completion: (@Sendable (Result<Void, NATSBridgeError>) -> Void)?
    }

    private func attempt(_ publish: _Publish, number: Int) {
        do {
            try transport.publish(subject: publish.subject, headers: publish.headers, body: publish.body) {
                [self] result in
                switch result {
                case .success(let duplicate):
                    counters.acknowledged.add(1, ordering: .relaxed)
                    if duplicate { counters.duplicates.add(1, ordering: .relaxed) }
                    finish(publish, .success(()))
                case .failure(let error):
                    retryOrReport(publish, number: number, error: error)
                }
            }
        } catch {
            retryOrReport(publish, number: number, error: error)
        }
    }

    private func retryOrReport(_ publish: _Publish, number: Int, error: any Error) {
        guard number < configuration.consumers.publishAttempts else {
            let failure = NATSBridgeError.publishFailed(
                messageID: publish.messageID, event: publish.event, reason: "\(error) after \(number) attempts")
            counters.publishFailures.add(1, ordering: .relaxed)
            report(failure)
            finish(publish, .failure(failure))
            return
        }
        counters.publishRetries.add(1, ordering: .relaxed)
        let delay = Duration.milliseconds(50 << min(number, 6))
        Task {
            try? await Task.sleep(for: delay)
            self.attempt(publish, number: number + 1)
        }
    }

    private func finish(_ publish: _Publish, _ result: Result<Void, NATSBridgeError>) {
        publish.completion?(result)
        let waiters = inFlight.withLockedValue { state -> [CheckedContinuation<Void, Never>] in
            state.count -= 1
            guard !state.waiters.isEmpty else { return [] }
            let count = state.count
            let ready = state.waiters.filter { count < $0.limit }.map(\.continuation)
            if !ready.isEmpty { state.waiters.removeAll { count < $0.limit } }
            return ready
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// W3C trace context that travels with exported events (`traceparent`).
public enum NATSTraceContext {
    /// Set around a dispatch (`NATSTraceContext.$traceparent.withValue(…) { bus.queue(event) }`)
    /// and the exported message carries it.
    @TaskLocal public static var traceparent: String?
}
