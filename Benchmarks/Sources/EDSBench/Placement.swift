// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// S3's ping-pong, with where each side ran: for every ping after the warm-up, whether the
/// handler ran on the CPU the producer was on when the reply woke it (`sched_getcpu`).
/// `EDSBench --child s3-placement CONTENDER` prints the p50 latency and that share: on a 2-core
/// machine, two threads handing a ping back and forth on one core pay two context switches per
/// round trip.
func measurePlacement(_ contender: any Contender, pings: Int) -> (p50: Double, sameCPU: Double) {
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "sched_getcpu") else { return (-1, -1) }
    let currentCPU = unsafeBitCast(symbol, to: (@convention(c) () -> Int32).self)
    let probe = PlacementProbe(currentCPU: currentCPU)
    let pipeline = contender.makePipeline(receivers: 1, otherTypes: 0) { _, tick in probe.received(tick) }
    var latencies: [UInt64] = []
    var same = 0
    let warmUp = pings / 5
    for index in 0..<(warmUp + pings) {
        pipeline.send(Tick(value: nowNanoseconds()))
        probe.reply.wait()
        guard index >= warmUp else { continue }
        latencies.append(probe.latency)
        if probe.handlerCPU == currentCPU() { same += 1 }
    }
    pipeline.tearDown()
    latencies.sort()
    return (Double(latencies[latencies.count / 2]) / 1_000, Double(same) / Double(pings))
}

/// The handler's side of ``measurePlacement(_:pings:)``.
// @unchecked Sendable: written by the handler before `reply` is signalled, read after
private final class PlacementProbe: @unchecked Sendable {
    let reply = DispatchSemaphore(value: 0)
    let currentCPU: @convention(c) () -> Int32
    var latency: UInt64 = 0
    var handlerCPU: Int32 = -1

    init(currentCPU: @escaping @convention(c) () -> Int32) { self.currentCPU = currentCPU }

    func received(_ tick: Tick) {
        let now = nowNanoseconds()
        latency = now > tick.value ? now - tick.value : 0
        handlerCPU = currentCPU()
        reply.signal()
    }
}
