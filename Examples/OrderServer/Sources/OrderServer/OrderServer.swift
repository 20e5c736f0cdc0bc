// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import EventDrivenSwiftObservability
import EventDrivenSwiftServiceLifecycle
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// `POST /orders` dispatches `OrderPlaced`; a `.listenerThread` listener charges it and dispatches
/// `OrderCharged`; an async listener stores that. `POST /orders/direct` charges and stores in the
/// request handler, without the bus (the benchmark's baseline). `GET /orders/count` reports.
@main
struct OrderServer {
    static func main() async throws {
        let options = Options.parse()
        var logger = Logger(label: "OrderServer")
        logger.logLevel = options.logLevel
        let counters = OrderCounters()
        let store = OrderStore()

        // The bus and its two listeners.
        let bus = EventBus(label: "orders", logger: logger)
        if options.observability != .none {
            bus.addInterceptor(EventBusMetrics())  // to the backend MetricsSystem was bootstrapped with
            bus.addInterceptor(EventBusTracing())  // to InstrumentationSystem's tracer
        }
        bus.listen(OrderPlaced.self, executeOn: .listenerThread) { order, _ in
            bus.queue(charge(order, cost: options.chargeCost, counters: counters))
        }
        bus.listenAsync(OrderCharged.self) { order in await store.save(order) }

        // The HTTP routes.
        let router = Router()
        if options.observability == .all {
            router.add(middleware: TracingMiddleware())
            router.add(middleware: MetricsMiddleware())
        }
        router.post("/orders") { request, context in
            let new = try await request.decode(as: NewOrder.self, context: context)
            let order = OrderPlaced(
                id: counters.accepted.add(1, ordering: .relaxed).newValue, amountCents: new.amountCents)
            // A bus that has stopped refuses the order: 503, never a 202 for an order nobody handles.
            do { try bus.tryDispatch(order) } catch { throw HTTPError(.serviceUnavailable) }
            return EditedResponse(status: .accepted, response: order)
        }
        router.post("/orders/direct") { request, context in
            let new = try await request.decode(as: NewOrder.self, context: context)
            let order = OrderPlaced(
                id: counters.accepted.add(1, ordering: .relaxed).newValue, amountCents: new.amountCents)
            let charged = charge(order, cost: options.chargeCost, counters: counters)
            await store.save(charged)
            return EditedResponse(status: .created, response: charged)
        }
        router.get("/orders/count") { _, _ in
            OrderCounts(
                accepted: counters.accepted.load(ordering: .relaxed),
                charged: counters.charged.load(ordering: .relaxed), stored: await store.count)
        }

        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: options.port)),
            onServerRunning: { channel in say("listening on 127.0.0.1:\(channel.localAddress?.port ?? 0)") },
            logger: logger)
        // The bus stops last: on SIGTERM the HTTP server stops taking orders, then the bus
        // finishes the ones it has (and the follow-ups its handlers dispatch).
        let group = ServiceGroup(
            bus: EventBusService(bus: bus, logger: logger), producers: [app],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        try await group.run()

        say(
            "stopped: accepted=\(counters.accepted.load(ordering: .relaxed))"
                + " charged=\(counters.charged.load(ordering: .relaxed)) stored=\(await store.count)"
                + " bus: \(bus.statistics)")
    }
}
