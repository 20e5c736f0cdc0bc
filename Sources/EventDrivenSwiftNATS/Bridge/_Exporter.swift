// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Foundation
import NIOConcurrencyHelpers
import NIOCore

/// Publishes events with acknowledgement: every event gets one `Nats-Msg-Id`, kept on each
/// retry so the stream stores it once; a publish that is never acknowledged is reported.
///
/// Every publish waiting for its acknowledgement is one entry of one table, under one key; over
/// NATS JetStream the frame is written straight into the client's outbound bytes and the
/// client hands the acknowledgement back under that key (``_NATSReplySink``): no closure, header
/// list, id string or body copy per event.
final class _Exporter: _NATSReplySink, Sendable {
    /// What a caller of ``NATSBridge/publishAndWait(_:)`` waits on.
    typealias Completion = @Sendable (Result<Void, NATSBridgeError>) -> Void

    private struct State: Sendable {
        /// The publishes waiting for their acknowledgement, by key.
        var pending: [UInt64: _Publish] = [:]
        /// The completions of those that have one, by key (kept apart: looking one up in
        /// ``pending`` copied the whole publish).
        var completions: [UInt64: Completion] = [:]
        var nextKey: UInt64 = 0
        /// Each waits until fewer than its limit are in flight.
        var waiters: [(limit: Int, continuation: CheckedContinuation<Void, Never>)] = []
        /// The templates of types published with ``NATSBridge/publish(_:)``, by name.
        var templates: [String: Template] = [:]

        /// Removes and returns the waiters whose limit is now above the count.
        mutating func readyWaiters() -> [CheckedContinuation<Void, Never>] {
            guard !waiters.isEmpty else { return [] }
            let count = pending.count
            let ready = waiters.filter { count < $0.limit }.map(\.continuation)
            if !ready.isEmpty { waiters.removeAll { count < $0.limit } }
            return ready
        }
    }

    private let transport: any EventTransport
    /// The client of a NATS JetStream transport: publishes go through it directly.
    private let client: NATSClient?
    /// The stream whose acks acknowledge a publish.
    private let streamName: String
    private let publishTimeout: TimeAmount
    private let configuration: NATSBridgeConfiguration
    private let counters: _BridgeCounters
    private let gate: _PublishGate
    private let report: @Sendable (NATSBridgeError) -> Void
    private let state = NIOLockedValueBox(State())
    private let messageIDs = _MessageIDs()

    init(
        transport: any EventTransport, configuration: NATSBridgeConfiguration, counters: _BridgeCounters,
        gate: _PublishGate, report: @escaping @Sendable (NATSBridgeError) -> Void
    ) {
        self.transport = transport
        let jetStream = transport as? NATSJetStreamTransport
        self.client = jetStream?.client
        self.streamName = jetStream?.stream.name ?? configuration.streamConfiguration.name
        let timeout = jetStream?.consumers.publishTimeout ?? configuration.consumers.publishTimeout
        self.publishTimeout = .nanoseconds(NATSJetStreamTransport.nanoseconds(timeout))
        self.configuration = configuration
        self.counters = counters
        self.gate = gate
        self.report = report
    }

    /// What every message of one event type shares, worked out once per type rather than per
    /// event: the subject, and the header lines after `Nats-Msg-Id` as bytes.
    final class Template: Sendable {
        let entry: NATSEventRegistry.Entry
        let subject: String
        let version: String
        let source: String
        let subjectBytes: [UInt8]
        /// Whether ``subject`` is one a message can be published on (no wildcard, no empty token):
        /// the prefix comes from the configuration, which a bridge built over a transport of its
        /// own checks only in ``NATSBridge/run()``.
        let isPublishable: Bool
        /// `Eds-Event: …`, `Eds-Event-Version: …`, `Eds-Source: …`, `Content-Type: application/json`,
        /// `Eds-Format: 1`, each with its CRLF.
        let fixedHeaders: [UInt8]

        init(entry: NATSEventRegistry.Entry, subject: String, source: String) {
            self.entry = entry
            self.subject = subject
            self.version = String(entry.version)
            self.source = source
            self.subjectBytes = Array(subject.utf8)
            self.isPublishable = NATSCommandEncoder.isValidSubject(subject, wildcards: false)
            var headers = ""
            for (name, value) in [
                (NATSHeaderName.event, entry.name), (NATSHeaderName.eventVersion, version),
                (NATSHeaderName.source, source), (NATSHeaderName.contentType, "application/json"),
                (NATSHeaderName.format, NATSHeaderName.currentFormat),
            ] {
                // The source is configuration, the name and version registered: still, nothing
                // that could split the frame is written.
                headers += "\(name): \(_Importer.oneLine(value))\r\n"
            }
            self.fixedHeaders = Array(headers.utf8)
        }
    }

    /// The template of `entry`'s messages.
    func template(for entry: NATSEventRegistry.Entry) -> Template {
        Template(entry: entry, subject: configuration.subject(for: entry.name), source: configuration.source)
    }

    /// Publishes `event`; `completion`, if given, gets the outcome after the last attempt.
    func export(
        _ event: any Eventable, entry: NATSEventRegistry.Entry,
        completion: (@Sendable (Result<Void, NATSBridgeError>) -> Void)? = nil
    ) {
        let template = state.withLockedValue { state in
            if let template = state.templates[entry.name], template.entry.type == entry.type { return template }
            let template = self.template(for: entry)
            state.templates[entry.name] = template
            return template
        }
        export(event, template, completion: completion)
    }

    /// Publishes `event` with a template made by ``template(for:)``.
    func export(
        _ event: any Eventable, _ template: Template,
        completion: (@Sendable (Result<Void, NATSBridgeError>) -> Void)? = nil
    ) {
        let entry = template.entry
        let id = messageIDs.nextNumber()
        if gate.refuses() {
            return fail(.notRunning, completion)
        }
        guard template.isPublishable else {
            return fail(
                .publishFailed(
                    messageID: messageIDs.string(id), event: entry.name,
                    reason: "\(template.subject.debugDescription) is not a subject a message can be published on"),
                completion)
        }
        let body: Data
        do {
            body = try entry.encode(event)
        } catch {
            return fail(
                .publishFailed(messageID: messageIDs.string(id), event: entry.name, reason: "cannot encode: \(error)"),
                completion)
        }
        let traceparent = NATSTraceContext.traceparent
        if let traceparent, traceparent.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            return fail(
                .publishFailed(
                    messageID: messageIDs.string(id), event: entry.name, reason: "the traceparent holds a control byte"),
                completion)
        }
        counters.exported.add(1, ordering: .relaxed)
        let publish = _Publish(template: template, body: body, id: id, traceparent: traceparent, attempt: 1)
        let key = state.withLockedValue { state in
            let key = state.nextKey
            state.nextKey &+= 1
            state.pending[key] = publish
            if let completion { state.completions[key] = completion }
            return key
        }
        attempt(publish, key: key)
    }

    /// Counts and reports a publish that failed before its first attempt.
    private func fail(_ failure: NATSBridgeError, _ completion: Completion?) {
        counters.publishFailures.add(1, ordering: .relaxed)
        report(failure)
        completion?(.failure(failure))
    }

    /// Returns once fewer than `limit` publishes are waiting for their acknowledgement (1: none).
    func waitUntilInFlight(below limit: Int) async {
        await withCheckedContinuation { continuation in
            let isBelow = state.withLockedValue { state -> Bool in
                if state.pending.count < limit { return true }
                state.waiters.append((limit, continuation))
                return false
            }
            if isBelow { continuation.resume() }
        }
    }

    /// One event's publish, from its first attempt to its acknowledgement or report.
    private struct _Publish: Sendable {
        let template: Template
        /// `JSONEncoder`'s bytes, sent unchanged by every attempt.
        let body: Data
        /// The `Nats-Msg-Id`'s counter value (``_MessageIDs``).
        let id: UInt64
        let traceparent: String?
        /// The attempt under way, from 1.
        var attempt: Int
        /// When the first attempt was made.
        let started = ContinuousClock.now
    }

    private func attempt(_ publish: _Publish, key: UInt64) {
        do {
            if let client {
                let size = NATSCommandEncoder.exportPayloadSize(
                    fixedHeaders: publish.template.fixedHeaders.count, traceparent: publish.traceparent,
                    body: publish.body.count)
                try client.request(
                    sink: self, key: key, subject: publish.template.subject, size: size,
                    deadline: .now() + publishTimeout
                ) { out, token in
                    publish.body.withUnsafeBytes { body in
                        NATSCommandEncoder.exportPublish(
                            subject: publish.template.subjectBytes, replyPrefix: client.replyPrefix, token: token,
                            writeID: { messageIDs.write(publish.id, to: $0) },
                            fixedHeaders: publish.template.fixedHeaders, traceparent: publish.traceparent, body: body,
                            into: &out)
                    }
                }
            } else {
                var headers = NATSHeaders(reservingCapacity: 5)
                headers.append(NATSHeaderName.messageID, messageIDs.string(publish.id))
                headers.append(NATSHeaderName.event, publish.template.entry.name)
                headers.append(NATSHeaderName.eventVersion, publish.template.version)
                headers.append(NATSHeaderName.source, publish.template.source)
                headers.append(NATSHeaderName.contentType, "application/json")
                headers.append(NATSHeaderName.format, NATSHeaderName.currentFormat)
                if let traceparent = publish.traceparent {
                    headers.append(NATSHeaderName.traceparent, traceparent)
                }
                try transport.publish(
                    subject: publish.template.subject, headers: headers, body: ByteBuffer(bytes: publish.body)
                ) { [self] result in
                    settle(key, result)
                }
            }
        } catch {
            retryOrReport(key, error: error)
        }
    }

    /// The acknowledgement of the publish under `key`, from the client.
    func reply(to key: UInt64, _ result: Result<NATSMessage, NATSError>) {
        switch result {
        case .success(let message):
            settle(key, Result { try JetStreamPublishAck.parse(message.payload, from: streamName).duplicate })
        case .failure(let error):
            settle(key, .failure(error))
        }
    }

    private func settle(_ key: UInt64, _ result: Result<Bool, any Error>) {
        switch result {
        case .success(let duplicate):
            counters.acknowledged.add(1, ordering: .relaxed)
            if duplicate { counters.duplicates.add(1, ordering: .relaxed) }
            finish(key, .success(()))
        case .failure(let error):
            retryOrReport(key, error: error)
        }
    }

    /// Retries the publish under `key` with the same message id, 50 ms doubling up to 2 s apart
    /// (jittered), until it is acknowledged, or reports it once it has had
    /// ``NATSBridgeConfiguration/Consumers/publishAttempts`` attempts and
    /// ``NATSBridgeConfiguration/Consumers/publishRetryWindow`` has passed: a stream whose
    /// cluster elects a new leader answers "no responders" for seconds, and a publish given up
    /// then would be an event lost.
    private func retryOrReport(_ key: UInt64, error: any Error) {
        let maximum = configuration.consumers.publishAttempts
        let window = configuration.consumers.publishRetryWindow
        let isPermanent = Self.isPermanent(error)
        // The attempt that failed, and whether there will be another.
        let failed = state.withLockedValue { state -> (publish: _Publish, retry: Bool)? in
            guard var publish = state.pending[key] else { return nil }
            guard !isPermanent, publish.attempt < maximum || ContinuousClock.now - publish.started < window else {
                return (publish, false)
            }
            publish.attempt += 1
            state.pending[key] = publish
            return (publish, true)
        }
        guard let (publish, retry) = failed else { return }
        guard retry else {
            let failure: NATSBridgeError
            if case .closed? = error as? NATSError {
                // The client was closed: the bridge has stopped, or is stopping for good.
                failure = .notRunning
            } else {
                failure = .publishFailed(
                    messageID: messageIDs.string(publish.id), event: publish.template.entry.name,
                    reason: isPermanent ? "\(error)" : "\(error) after \(publish.attempt) attempts")
            }
            counters.publishFailures.add(1, ordering: .relaxed)
            report(failure)
            finish(key, .failure(failure))
            return
        }
        counters.publishRetries.add(1, ordering: .relaxed)
        let delay = Self.retryDelay(afterAttempt: publish.attempt - 1)
        Task {
            try? await Task.sleep(for: delay)
            self.attempt(publish, key: key)
        }
    }

    /// Whether another attempt of a publish that failed with `error` cannot succeed: a client
    /// closed for good, a message over the server's `max_payload`, a subject or header the
    /// protocol cannot carry. Such a publish is reported at once.
    static func isPermanent(_ error: any Error) -> Bool {
        switch error as? NATSError {
        case .closed, .payloadTooLarge, .invalidArgument: true
        default: false
        }
    }

    /// The longest wait before the retry that follows failed attempt `failed` (from 1): 50 ms
    /// after the first, doubling after each, never more than 2 s.
    static func retryDelayBound(afterAttempt failed: Int) -> Duration {
        .milliseconds(min(50 << min(max(failed, 1) - 1, 6), 2_000))
    }

    /// The wait before the retry that follows failed attempt `failed`: ``retryDelayBound(afterAttempt:)``
    /// less a random share of up to half.
    static func retryDelay(afterAttempt failed: Int) -> Duration {
        retryDelayBound(afterAttempt: failed) * Double.random(in: 0.5...1)
    }

    /// Ends the publish under `key`: its completion, if any, gets `result` before the publish
    /// stops counting as in flight.
    private func finish(_ key: UInt64, _ result: Result<Void, NATSBridgeError>) {
        // The record is released after the lock: it may free the body.
        var (completion, ready, removed) = state.withLockedValue {
            state -> (Completion?, [CheckedContinuation<Void, Never>], _Publish?) in
            if !state.completions.isEmpty, let completion = state.completions.removeValue(forKey: key) {
                return (completion, [], nil)
            }
            let removed = state.pending.removeValue(forKey: key)
            return (nil, state.readyWaiters(), removed)
        }
        if let completion {
            completion(result)
            (ready, removed) = state.withLockedValue { state in
                let removed = state.pending.removeValue(forKey: key)
                return (state.readyWaiters(), removed)
            }
        }
        _ = removed
        for waiter in ready { waiter.resume() }
    }
}

/// W3C trace context that travels with exported events (`traceparent`).
public enum NATSTraceContext {
    /// Set around a dispatch (`NATSTraceContext.$traceparent.withValue(…) { bus.queue(event) }`)
    /// and the exported message carries it.
    @TaskLocal public static var traceparent: String?
}
