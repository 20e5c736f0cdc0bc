// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import Logging
import Synchronization
import Testing

/// `.requesterThread` follows the registering caller's isolation (SPEC L3, issue 12 §2).
@Suite("L3: .requesterThread follows the caller's isolation and never stalls")
struct RequesterIsolationTests {
    struct Ping: Eventable { let value: Int }

    actor Counter {
        var values: [Int] = []
        func record(_ value: Int) { values.append(value) }
        /// Registers from inside the actor: the listener should run isolated to it.
        func register(on bus: EventBus, arrived: DispatchSemaphore) -> EventListenerHandle {
            bus.listen(Ping.self) { [self] event, _ in
                self.assumeIsolated { $0.values.append(event.value) }
                arrived.signal()
            }
        }
    }

    /// Registers with no isolation, from whatever thread calls it.
    nonisolated static func registerNonisolated(
        on bus: EventBus, _ handler: @escaping @Sendable (Ping, EventMetadata) -> Void
    ) -> EventListenerHandle {
        bus.listen(Ping.self, handler)
    }

    @Test("L3: registered on the main thread without isolation, a listener never waits for the main queue")
    func mainThreadWithoutIsolation() async {
        let bus = EventBus(label: "L3-main-nonisolated")
        let arrived = DispatchSemaphore(value: 0)
        let registered = DispatchSemaphore(value: 0)
        let releaseMain = DispatchSemaphore(value: 0)
        let handles = CoreRecorder<EventListenerHandle>()
        // Register on the main thread from nonisolated code, then keep the main queue busy until
        // delivery, as a command-line program waiting on a semaphore does.
        DispatchQueue.main.async {
            handles.append(Self.registerNonisolated(on: bus) { _, _ in arrived.signal() })
            registered.signal()
            releaseMain.wait()
        }
        await coreWait(registered)
        Ping(value: 1).queue(on: bus)
        await coreWait(arrived)
        releaseMain.signal()
        #expect(bus.statistics.delivered == 1)
        for handle in handles.values { handle.cancel() }
    }

    @Test("L3: registered from @MainActor code, a listener runs on the main actor, in order")
    @MainActor
    func mainActorCaller() async {
        let bus = EventBus(label: "L3-main-actor")
        _ = ReadmeContractTests.mainQueueKey  // marks the main queue
        let onMain = CoreRecorder<Bool>()
        let values = CoreRecorder<Int>()
        let handle = bus.listen(Ping.self) { event, _ in
            onMain.append(DispatchQueue.getSpecific(key: ReadmeContractTests.mainQueueKey) == true)
            values.append(event.value)
        }
        for value in 0..<100 { Ping(value: value).queue(on: bus) }
        await bus.drain()
        #expect(values.values == Array(0..<100))
        #expect(onMain.values.allSatisfy { $0 } && onMain.count == 100)
        handle.cancel()
    }

    @Test("L3: a @MainActor owner's bound method runs on the main actor wherever it was registered from")
    func mainActorBoundMethod() async {
        let bus = EventBus(label: "L3-main-owner")
        let model = await MainActor.run { MainScreenModel() }
        // Registered from a nonisolated context: the callback is main-actor isolated all the same.
        let handle = model.register(on: bus)
        for value in 0..<10 { Ping(value: value).queue(on: bus) }
        await bus.drain()
        #expect(await model.values == Array(0..<10))
        handle.cancel()
    }

    @Test("L3: registered from an actor, a listener runs isolated to that actor, in order")
    func actorCaller() async {
        let bus = EventBus(label: "L3-actor")
        let counter = Counter()
        let arrived = DispatchSemaphore(value: 0)
        let handle = await counter.register(on: bus, arrived: arrived)
        for value in 0..<100 { Ping(value: value).queue(on: bus) }
        await bus.drain()
        #expect(await counter.values == Array(0..<100))
        handle.cancel()
    }

    @Test(
        "L3: main-actor deliveries that wait over a second for the main queue are logged once per stall, naming the event type"
    )
    func mainQueueBacklogIsReported() async {
        let log = CapturedLog()
        let bus = EventBus(label: "L3-backlog", logger: Logger(label: "test") { _ in log })
        let handle = bus.listen(Ping.self, executeOn: .mainActor) { _, _ in }
        let releaseMain = await holdMainQueue()
        Ping(value: 1).queue(on: bus)
        Ping(value: 2).queue(on: bus)
        await coreWait(log.warned)
        // Counted before the main queue runs again: two deliveries, one stall, one warning. (A
        // later stall warns again: other suites hold the main queue on purpose, so what comes
        // after the release is not counted; see MainQueueWatchTests.)
        let warnings = log.messages.filter { $0.level == .warning }
        releaseMain.signal()
        await bus.drain()
        #expect(warnings.count == 1)
        #expect(warnings.first?.text.contains(String(reflecting: Ping.self)) == true)
        #expect(bus.statistics.delivered == 2)
        handle.cancel()
    }
}

@MainActor
final class MainScreenModel {
    var values: [Int] = []

    func onPing(_ event: RequesterIsolationTests.Ping, _ priority: EventPriority, _ dispatchTime: DispatchTime) {
        values.append(event.value)
    }

    nonisolated func register(on bus: EventBus) -> EventListenerHandle {
        RequesterIsolationTests.Ping.addListener(self, onPing, on: bus)
    }
}

/// A log handler that keeps what it is given.
final class CapturedLog: LogHandler, Sendable {
    struct Message: Sendable {
        let level: Logger.Level
        let text: String
    }
    private let storage = LockedValue<[Message]>([])
    let warned = DispatchSemaphore(value: 0)

    var messages: [Message] { storage.withLock { $0 } }

    func log(event: LogEvent) {
        storage.withLock { $0.append(Message(level: event.level, text: "\(event.message)")) }
        if event.level == .warning { warned.signal() }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { nil }
        set {}
    }
    var metadata: Logger.Metadata {
        get { [:] }
        set {}
    }
    var logLevel: Logger.Level {
        get { .trace }
        set {}
    }
}
