// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import Testing

@testable import EventDrivenSwift

/// `EventDrivenError` is a struct with an extensible code (issue 25): a `switch` over the code
/// with a `default` keeps compiling when codes are added, and the values each code carries are
/// properties.
@Suite("EventDrivenError: an extensible code, and the values as properties (issue 25)")
struct ErrorCodeTests {
    private struct Payment: Eventable { let amount: Int }
    private struct Declined: Error, CustomStringConvertible {
        let amount: Int
        var description: String { "declined \(amount)" }
    }

    private static func metadata(_ priority: EventPriority) -> EventMetadata {
        EventMetadata(priority: priority, method: .queue, dispatchTime: .now(), scheduledTime: nil)
    }

    /// One error of every code there is today.
    private static let oneOfEach: [EventDrivenError] = [
        .nilOwner(eventType: "Payment"),
        .missingCustomFilter(eventType: "Payment"),
        .negativeMaximumAge(eventType: "Payment", maximumAge: -1),
        .busShutDown(bus: "orders", eventType: "Payment"),
        .threadCancelled(thread: "Charger"),
        .handlerFailed(
            event: Payment(amount: 1), metadata: Self.metadata(.normal),
            receiver: "the listener thread", error: Declined(amount: 1)),
        .mailboxFull(receiver: "EventThread(Charger)", eventType: "Payment"),
        .catchAllSubscription(api: "listen"),
        .synchronousDepthExceeded(bus: "orders", eventType: "Payment", receiver: "a synchronous listener", limit: 64),
        .customFilterIsolation(eventType: "Payment"),
        .customFilterEventType(eventType: "Payment", filterEventType: "Refund"),
    ]

    /// What a user's error handler looks like: a `switch` over the code, with a `default` for
    /// the codes it does not handle and for those a later version adds.
    private static func advice(for error: EventDrivenError) -> String {
        switch error.code {
        case .mailboxFull: "slow down"
        case .handlerFailed: "retry"
        case .busShutDown: "stop"
        default: "log"
        }
    }

    @Test("a switch over the code with a default sorts real errors from a bus")
    func switchOverTheCode() async {
        let bus = EventBus(label: #function)
        var errors: [EventDrivenError] = []
        bus.setErrorHandler { _ in }
        let handle = Payment.addListener(nil, { _, _, _ in }, on: bus)
        errors += handle.registrationError.map { [$0] } ?? []
        await bus.shutdown()
        do {
            try bus.tryDispatch(Payment(amount: 1))
        } catch {
            errors.append(error)
        }
        #expect(errors.map(\.code) == [.nilOwner, .busShutDown])
        #expect(errors.map(Self.advice(for:)) == ["log", "stop"])
        #expect(
            Self.oneOfEach.map(Self.advice(for:)) == [
                "log", "log", "log", "stop", "log", "retry", "slow down", "log", "log", "log", "log",
            ])
    }

    @Test("a code is a pattern: case .mailboxFull in a switch over the error, catch EventDrivenError.Code…")
    func codesArePatterns() async {
        let bus = EventBus(label: #function)
        await bus.shutdown()
        var caught: [String] = []
        do {
            try bus.tryDispatch(Payment(amount: 1))
        } catch .mailboxFull {
            caught.append("mailboxFull")
        } catch .busShutDown {
            caught.append("busShutDown")
        } catch {
            caught.append("other")
        }
        do {
            try bus.tryDispatch(Payment(amount: 2))
        } catch let error where error.code == .busShutDown {
            caught.append("where \(error.bus ?? "?")")
        } catch {
            caught.append("other")
        }
        let thrown: any Error = EventDrivenError.busShutDown(bus: "orders", eventType: "Payment")
        do {
            throw thrown
        } catch EventDrivenError.Code.busShutDown {
            caught.append("any Error")
        } catch {
            caught.append("other")
        }
        #expect(caught == ["busShutDown", "where \(bus.label)", "any Error"])
        let matched = Self.oneOfEach.map { error -> String in
            switch error {
            case .handlerFailed: "handlerFailed"
            case .mailboxFull: "mailboxFull"
            default: "-"
            }
        }
        #expect(matched == ["-", "-", "-", "-", "-", "handlerFailed", "mailboxFull", "-", "-", "-", "-"])
        #expect(!(EventDrivenError.Code.mailboxFull ~= Declined(amount: 1)), "another type of error never matches")
    }

    @Test("each code and each error has a description of its own")
    func descriptions() {
        let codes = Self.oneOfEach.map(\.code)
        #expect(Set(codes).count == codes.count)
        #expect(
            codes.map(\.description) == [
                "nilOwner", "missingCustomFilter", "negativeMaximumAge", "busShutDown", "threadCancelled",
                "handlerFailed", "mailboxFull", "catchAllSubscription", "synchronousDepthExceeded",
                "customFilterIsolation", "customFilterEventType",
            ])
        let sentences = Self.oneOfEach.map(\.description)
        #expect(sentences.allSatisfy { !$0.isEmpty })
        #expect(Set(sentences).count == sentences.count)
        #expect(sentences[2].contains("-1 ns"))
        #expect(sentences[5].contains("declined 1") && sentences[5].contains("Payment"))
        #expect(sentences[8].contains("64 deep"))
        #expect(sentences[10].contains("Refund"))
    }

    @Test("== compares the code and the values; events by type, underlying errors by type and description")
    func equalityAndHashing() {
        let metadata = Self.metadata(.normal)
        func failed(_ amount: Int, _ declined: Int) -> EventDrivenError {
            .handlerFailed(
                event: Payment(amount: amount), metadata: metadata, receiver: "r", error: Declined(amount: declined))
        }
        #expect(EventDrivenError.nilOwner(eventType: "A") == .nilOwner(eventType: "A"))
        #expect(EventDrivenError.nilOwner(eventType: "A") != .nilOwner(eventType: "B"))
        #expect(
            EventDrivenError.nilOwner(eventType: "A") != .missingCustomFilter(eventType: "A"),
            "same values, another code")
        #expect(
            EventDrivenError.mailboxFull(receiver: "r", eventType: "A") != .mailboxFull(receiver: "s", eventType: "A"))
        #expect(failed(1, 1) == failed(2, 1), "the event is compared by its type")
        #expect(failed(1, 1) != failed(1, 2), "the underlying error by its type and description")
        #expect(
            failed(1, 1)
                != .handlerFailed(
                    event: Payment(amount: 1), metadata: Self.metadata(.high), receiver: "r",
                    error: Declined(amount: 1)),
            "and the metadata")
        #expect(failed(1, 1).hashValue == failed(2, 1).hashValue)
        #expect(Set(Self.oneOfEach + Self.oneOfEach).count == Self.oneOfEach.count)
        #expect(
            EventDrivenError.customFilterEventType(eventType: "A", filterEventType: "B")
                != .customFilterEventType(eventType: "A", filterEventType: "C"), "the filter's type too")
        #expect(Set([failed(1, 1), failed(2, 1), failed(1, 2)]).count == 2)
    }

    @Test("handlerFailed gives the event, its metadata, the receiver and what the handler threw")
    func handlerFailedCarriesTheEventAndTheError() async throws {
        let bus = EventBus(label: #function)
        let errors = coreCollectErrors(on: bus)
        bus.listen(Payment.self, executeOn: .synchronous) { (payment: Payment, _) throws in
            throw Declined(amount: payment.amount)
        }
        bus.queue(Payment(amount: 7), priority: .high)
        await bus.drain()
        await bus.shutdown()
        let error = try #require(errors.values.first)
        #expect(errors.count == 1)
        #expect(error.code == .handlerFailed)
        #expect((error.event as? Payment)?.amount == 7)
        #expect((error.underlyingError as? Declined)?.amount == 7)
        #expect(error.metadata?.priority == .high)
        #expect(error.receiver?.isEmpty == false)
        #expect(error.eventType == String(reflecting: Payment.self))
        #expect(error.bus == nil && error.limit == nil, "what the code does not carry is nil")
    }
}
