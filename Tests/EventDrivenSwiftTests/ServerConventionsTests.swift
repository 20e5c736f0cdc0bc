// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Instrumentation
import ServiceContextModule
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

private struct Ping: Eventable { let value: Int }

private enum RequestID: ServiceContextKey {
    typealias Value = String
}

/// An interceptor that only counts, as a metrics interceptor does.
private final class CountingInterceptor: EventInterceptor {
    let dispatches = Atomic<Int>(0)
    let sources = LockedValue<[EventSource]>([])

    func didDispatch(_ dispatch: EventDispatchInfo, context: inout ServiceContext) {
        dispatches.add(1, ordering: .relaxed)
        sources.withLock { $0.append(dispatch.source) }
    }
}

/// Issue 29 item 3: the conventions a swift-server engineer expects.
@Suite("Issue 29 item 3: server conventions")
struct ServerConventionsTests {
    // MARK: Service context

    @Test(
        "one rule for the service context: adding an interceptor does not change what handlers see",
        arguments: [false, true])
    func interceptorLeavesContextAlone(propagates: Bool) async {
        let bus = EventBus(label: "context-\(propagates)", propagatesServiceContext: propagates)
        let seen = CoreRecorder<String?>()
        bus.listen(Ping.self, executeOn: .listenerThread) { _, _ in seen.append(ServiceContext.current?[RequestID.self])
        }
        var context = ServiceContext.topLevel
        context[RequestID.self] = "request-1"
        ServiceContext.withValue(context) { bus.queue(Ping(value: 1)) }
        await bus.drain()
        let interceptor = CountingInterceptor()
        bus.addInterceptor(interceptor)
        ServiceContext.withValue(context) { bus.queue(Ping(value: 2)) }
        await bus.drain()
        #expect(interceptor.dispatches.load(ordering: .relaxed) == 1)
        let expected: String? = propagates ? "request-1" : nil
        #expect(seen.values == [expected, expected], "the same with and without the interceptor")
        await bus.shutdown()
    }

    @Test("by default a bus propagates the context when an instrument is bootstrapped (none is in these tests)")
    func defaultFollowsInstrumentationSystem() {
        #expect(EventBus(label: "context-default").propagatesServiceContext == false)
        #expect(EventBus(label: "context-on", propagatesServiceContext: true).propagatesServiceContext)
    }

    #if os(Linux) || os(macOS)
        @Test(
            "an instrument bootstrapped before the bus turns propagation on (a process of its own: a bootstrap is once per process)"
        )
        func bootstrappedInstrumentTurnsPropagationOn() async {
            await #expect(processExitsWith: .success) {
                struct Instrumented: Instrument {
                    func extract<Carrier, Extract: Extractor>(
                        _ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract
                    ) where Extract.Carrier == Carrier {}
                    func inject<Carrier, Inject: Injector>(
                        _ context: ServiceContext, into carrier: inout Carrier, using injector: Inject
                    ) where Inject.Carrier == Carrier {}
                }
                precondition(!EventBus(label: "before").propagatesServiceContext)
                InstrumentationSystem.bootstrap(Instrumented())
                precondition(EventBus(label: "after").propagatesServiceContext)
            }
        }
    #endif

    // MARK: Metadata for async handlers

    @Test("async listeners get their event's metadata like other handler kinds")
    func asyncListenerGetsMetadata() async {
        let bus = EventBus(label: "async-metadata")
        let priorities = CoreRecorder<EventPriority>()
        bus.listenAsync(Ping.self) { _, metadata in priorities.append(metadata.priority) }
        bus.queue(Ping(value: 1), priority: .high)
        try? await bus.waitUntilQuiet()
        #expect(priorities.values == [.high])
        await bus.shutdown()
    }

    @Test("actor listeners get their event's metadata too")
    func actorListenerGetsMetadata() async {
        let bus = EventBus(label: "actor-metadata")
        let store = MetadataStore()
        bus.listen(Ping.self, on: store) { store, _, metadata in store.methods.append(metadata.method) }
        bus.stack(Ping(value: 1))
        try? await bus.waitUntilQuiet()
        #expect(await store.methods == [.stack])
        await bus.shutdown()
    }

    // MARK: tryDispatch's source

    @Test("tryDispatch says where it was called, like the other dispatch forms")
    func tryDispatchTakesFileAndLine() async throws {
        let bus = EventBus(label: "try-source")
        let interceptor = CountingInterceptor()
        bus.addInterceptor(interceptor)
        let line = #line + 1
        try bus.tryDispatch(Ping(value: 1))
        let source = try #require(interceptor.sources.withLock { $0.first })
        #expect(source.line == line)
        #expect(source.fileID.hasSuffix("ServerConventionsTests.swift"))
        await bus.shutdown()
    }

    // MARK: Thread names

    @Test("the listener thread's name fits Linux's 15 bytes and says which bus")
    func listenerThreadName() async {
        let names = CoreRecorder<String>()
        let bus = EventBus(label: "orders")
        bus.listen(Ping.self, executeOn: .listenerThread) { _, _ in names.append(currentThreadName()) }
        let long = EventBus(label: "inventory-reservations")
        long.listen(Ping.self, executeOn: .listenerThread) { _, _ in names.append(currentThreadName()) }
        bus.queue(Ping(value: 1))
        long.queue(Ping(value: 2))
        await bus.drain()
        await long.drain()
        #expect(Set(names.values) == ["orders:listener", "invent:listener"])
        await bus.shutdown()
        await long.shutdown()
    }

    @Test("an EventThread's name is its bus and its class, within 15 bytes")
    func eventThreadName() async {
        let bus = EventBus(label: "orders")
        let thread = Charger(bus: bus)
        bus.queue(Ping(value: 1))
        await bus.drain()
        #expect(Charger.names.withLock { $0 } == ["orders:Charger"])
        withExtendedLifetime(thread) {}
        await bus.shutdown()
    }
}

private actor MetadataStore {
    var methods: [EventDispatchMethod] = []
}

private final class Charger: EventThread, @unchecked Sendable {  // no stored state of its own
    static let names = LockedValue<[String]>([])

    override func registerEventListeners() {
        addEventCallback(Ping.self) { _, _ in Charger.names.withLock { $0.append(currentThreadName()) } }
    }
}

/// The current thread's name as the system has it: `pthread_getname_np`, found at run time
/// (Swift's Glibc module leaves out the GNU extensions).
private func currentThreadName() -> String {
    var buffer = [CChar](repeating: 0, count: 64)
    #if canImport(Glibc)
        typealias GetName = @convention(c) (pthread_t, UnsafeMutablePointer<CChar>, Int) -> Int32
        guard let program = dlopen(nil, RTLD_NOW) else { return "" }
        defer { dlclose(program) }
        guard let symbol = dlsym(program, "pthread_getname_np") else { return "" }
        let getName = unsafeBitCast(symbol, to: GetName.self)
        _ = getName(pthread_self(), &buffer, buffer.count)
    #endif
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
