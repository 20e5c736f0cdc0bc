// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Logging
import Synchronization
import Testing

/// Errors a user can act on (issue 12 §4): the failure carries the event, its metadata, where
/// the handler ran and the original error; the delivery is a dead letter; logging stays quiet.
@Suite("R2/R4: handler failures you can act on (issue 12 §4)")
struct HandlerFailureTests {
    private struct Payment: Eventable { let amount: Int }
    private struct Declined: Error { let amount: Int }

    enum Receiver: CaseIterable, Sendable {
        case synchronous, task, listenerThread, eventThread, async
    }

    @Test(
        "R2/R4 (issue 12 §4): a handler's error carries the event, metadata, receiver and error; the delivery is a failed dead letter",
        arguments: Receiver.allCases)
    func failureIsADeadLetter(receiver: Receiver) async {
        let bus = EventBus(label: #function)
        let letters = bus.deadLetters()
        let errors = coreCollectErrors(on: bus)
        let thread = receiver == .eventThread ? EventThread(bus: bus) : nil
        let handler: @Sendable (Payment, EventMetadata) throws -> Void = { payment, _ in
            if payment.amount > 100 { throw Declined(amount: payment.amount) }
        }
        switch receiver {
        case .synchronous: bus.listen(Payment.self, executeOn: .synchronous, handler)
        case .task: bus.listen(Payment.self, executeOn: .taskThread, handler)
        case .listenerThread: bus.listen(Payment.self, executeOn: .listenerThread, handler)
        case .eventThread: thread?.addEventCallback(Payment.self, handler)
        case .async:
            bus.listenAsync(Payment.self) { (payment: Payment) async throws in
                if payment.amount > 100 { throw Declined(amount: payment.amount) }
            }
        }
        for amount in [50, 150, 250] { bus.queue(Payment(amount: amount), priority: .high) }
        await bus.drain()
        thread?.cancel()
        await bus.shutdown()
        var failedLetters: [Int] = []
        for await letter in letters where letter.reason == .failed {
            failedLetters.append((letter.event as! Payment).amount)
        }
        #expect(failedLetters.sorted() == [150, 250])
        #expect(bus.statistics.failed == 2)
        #expect(bus.statistics.delivered == 1, "a delivery whose handler threw is not also delivered")
        let declined = errors.values.compactMap { error -> Int? in
            guard error.code == .handlerFailed, let payment = error.event as? Payment,
                let declined = error.underlyingError as? Declined, let metadata = error.metadata,
                let receiver = error.receiver
            else { return nil }
            #expect(payment.amount == declined.amount)
            #expect(metadata.priority == .high)
            #expect(!receiver.isEmpty)
            #expect(error.description.contains("Declined"))
            return declined.amount
        }
        #expect(declined.sorted() == [150, 250])
    }

    @Test("R2/M1 (issue 12 §4): errors log at .debug while an error handler is set, at .info otherwise")
    func loggingFollowsSwiftLogGuidance() async {
        let levels = LevelRecorder()
        let logger = Logger(label: "test") { _ in LevelRecorder.Handler(recorder: levels) }
        let bus = EventBus(label: #function, logger: logger)
        bus.listen(Payment.self, executeOn: .synchronous) { (_: Payment, _: EventMetadata) throws in
            throw Declined(amount: 1)
        }
        bus.dispatchNow(Payment(amount: 1))
        #expect(levels.values == [.info])
        bus.setErrorHandler { _ in }
        bus.dispatchNow(Payment(amount: 1))
        #expect(levels.values == [.info, .debug], "no second write where the user handles the error")
        await bus.shutdown()
    }
}

/// Records the level of every message logged.
private final class LevelRecorder: Sendable {
    private let levels = LockedValue<[Logger.Level]>([])
    var values: [Logger.Level] { levels.withLock { $0 } }

    struct Handler: LogHandler {
        let recorder: LevelRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            recorder.levels.withLock { $0.append(event.level) }
        }
    }
}
