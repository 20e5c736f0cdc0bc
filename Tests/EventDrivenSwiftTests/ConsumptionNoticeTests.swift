// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import ServiceContextModule
import Testing

/// Issue 15: the did-consume notice is built on the interceptors, like metrics and tracing,
/// and is installed only while someone wants notices.
@Suite("W3/M2 (issue 15): the did-consume notice is an interceptor, installed while wanted")
struct ConsumptionNoticeTests {
    private struct Ping: Eventable {}

    private final class PingConsumer: EventConsumer {
        var willConsume: [any Eventable.Type] { [Ping.self] }
        func consume(_ event: any Eventable) {}
    }

    /// Counts the dispatches of each type it sees.
    private final class DispatchCounter: EventInterceptor {
        let types = CoreRecorder<String>()
        func didDispatch(_ dispatch: EventDispatchInfo, context: inout ServiceContext) {
            types.append(dispatch.eventType)
        }
    }

    @Test("a notice is dispatched after each consumption while a listener wants it, and not after")
    func installedWhileWanted() async {
        let bus = EventBus(label: #function)
        let consumer = PingConsumer()
        bus.register(consumer)
        let spy = DispatchCounter()
        bus.addInterceptor(spy)
        let notices = CoreRecorder<String>()
        let listener = bus.listen(DidConsumeEvent.self, executeOn: .synchronous) { notice, _ in
            notices.append(String(describing: type(of: notice.event)))
        }
        bus.dispatchNow(Ping())
        #expect(notices.values == ["Ping"])
        #expect(bus.interceptors.count == 1, "the library's own notice interceptor is not listed")
        listener.cancel()
        let before = bus.statistics
        bus.dispatchNow(Ping())
        #expect(notices.values == ["Ping"])
        #expect(bus.statistics.undelivered == before.undelivered, "no notice dispatched to nobody")
        let noticeDispatches = spy.types.values.filter { $0.hasSuffix("DidConsumeEvent") }
        #expect(noticeDispatches.count == 1, "the notice is a dispatch interceptors see, once")
        await bus.shutdown()
    }

    @Test("a consumer of DidConsumeEvent turns the notices on, and unregistering it off")
    func consumerOfNotices() async {
        final class NoticeLog: EventConsumer {
            let seen = CoreRecorder<String>()
            var willConsume: [any Eventable.Type] { [DidConsumeEvent.self] }
            func consume(_ event: any Eventable) { seen.append("notice") }
        }
        let bus = EventBus(label: #function)
        let consumer = PingConsumer()
        let log = NoticeLog()
        bus.register(consumer)
        bus.register(log)
        bus.dispatchNow(Ping())
        #expect(log.seen.values == ["notice"])
        bus.unregister(log)
        bus.dispatchNow(Ping())
        #expect(log.seen.values == ["notice"])
        #expect(bus.statistics.undelivered == 0)
        await bus.shutdown()
    }
}
