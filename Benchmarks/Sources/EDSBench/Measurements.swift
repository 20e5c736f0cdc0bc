// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import Histogram

/// Monotonic nanoseconds.
@inline(__always)
func nowNanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Counts deliveries per receiver and signals once every receiver has seen its target count.
// @unchecked Sendable: slot i is written only by receiver i's serial context; the semaphore publishes it
final class DeliveryTally: @unchecked Sendable {
    private static let stride = 16  // one cache line per slot, so receivers never share one
    private let slots: UnsafeMutablePointer<Int>
    private let receivers: Int
    private var target = 0
    private let done = DispatchSemaphore(value: 0)

    init(receivers: Int) {
        self.receivers = receivers
        slots = .allocate(capacity: receivers * Self.stride)
        slots.initialize(repeating: 0, count: receivers * Self.stride)
    }

    deinit { slots.deallocate() }

    /// Sets the count each receiver must reach; call while every receiver is quiet.
    func arm(_ count: Int) {
        target = count
        for index in 0..<receivers { slots[index * Self.stride] = 0 }
    }

    @inline(__always)
    func hit(_ receiver: Int) {
        let slot = slots + receiver * Self.stride
        slot.pointee += 1
        if slot.pointee == target { done.signal() }
    }

    /// Blocks until every receiver has reached the target.
    func waitForAll() {
        for _ in 0..<receivers { done.wait() }
    }
}

/// Records dispatch→callback latency on the receiver and replies to the sender.
// @unchecked Sendable: `histogram` and `recording` change only between a reply's signal and the next send
final class LatencyProbe: @unchecked Sendable {
    var histogram = Histogram<UInt64>(highestTrackableValue: 10_000_000_000, numberOfSignificantValueDigits: .three)
    var recording = false
    let reply = DispatchSemaphore(value: 0)

    @inline(__always)
    func received(_ tick: Tick) {
        let now = nowNanoseconds()
        if recording { _ = histogram.record(now > tick.value ? now - tick.value : 0) }
        reply.signal()
    }
}

/// Events per second from one producer to `receivers` receivers, to the moment the last
/// receiver saw the last event.
func measureThroughput(_ contender: any Contender, receivers: Int, events: Int, otherTypes: Int = 0) -> Double {
    let tally = DeliveryTally(receivers: receivers)
    let pipeline = contender.makePipeline(receivers: receivers, otherTypes: otherTypes) { index, _ in
        tally.hit(index)
    }
    let warmUp = min(events, 2_000)
    tally.arm(warmUp)
    for value in 0..<warmUp { pipeline.send(Tick(value: UInt64(value))) }
    tally.waitForAll()
    tally.arm(events)
    let start = nowNanoseconds()
    for value in 0..<events { pipeline.send(Tick(value: UInt64(value))) }
    tally.waitForAll()
    let elapsed = nowNanoseconds() - start
    pipeline.tearDown()
    return Double(events * receivers) / (Double(elapsed) / 1e9)
}

/// Latency percentiles of one ping-pong run, in nanoseconds.
struct LatencySample {
    let p50: Double
    let p99: Double
    let max: Double
}

/// Ping-pong: the sender stamps each event, the callback records the latency and replies.
func measureLatency(_ contender: any Contender, pings: Int) -> LatencySample {
    let probe = LatencyProbe()
    let pipeline = contender.makePipeline(receivers: 1, otherTypes: 0) { _, tick in probe.received(tick) }
    for index in 0..<(pings / 5 + pings) {
        probe.recording = index >= pings / 5
        pipeline.send(Tick(value: nowNanoseconds()))
        probe.reply.wait()
    }
    pipeline.tearDown()
    let histogram = probe.histogram
    return LatencySample(
        p50: Double(histogram.valueAtPercentile(50)), p99: Double(histogram.valueAtPercentile(99)),
        max: Double(histogram.max))
}

/// S6: nanoseconds per synchronous dispatch to one handler. The floor calls a closure under a lock.
func measureSynchronousCost(_ contender: any Contender, events: Int) -> Double {
    let tally = DeliveryTally(receivers: 1)
    let send: (Tick) -> Void
    let tearDown: () -> Void
    if contender.kind == .floor {
        let direct = FloorDirect()
        direct.add { _ in tally.hit(0) }
        send = direct.send
        tearDown = {}
    } else {
        let pipeline = contender.makePipeline(receivers: 1, otherTypes: 0) { index, _ in tally.hit(index) }
        send = pipeline.send
        tearDown = pipeline.tearDown
    }
    tally.arm(1_000)
    for value in 0..<1_000 { send(Tick(value: UInt64(value))) }
    tally.waitForAll()
    tally.arm(events)
    let start = nowNanoseconds()
    for value in 0..<events { send(Tick(value: UInt64(value))) }
    tally.waitForAll()
    let elapsed = nowNanoseconds() - start
    tearDown()
    return Double(elapsed) / Double(events)
}
