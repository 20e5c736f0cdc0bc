// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwiftNATS
import Foundation
import NIOConcurrencyHelpers
import NIOCore

/// NATS core publish/subscribe through our client, same payload and headers as the bridge's,
/// no JetStream: the broker's floor. Throughput: publish `count` and wait until the subscriber
/// has them all. Latency: one message at a time, paced.
func rawBaseline(server: String, count: Int, latencySamples: Int, paceMicroseconds: Int) async throws
    -> (rate: Double, p50: Double, p99: Double)
{
    let configuration = try NATSClientConfiguration(server: server)
    let publisher = NATSClient(configuration: configuration, logger: quietLogger)
    let subscriber = NATSClient(configuration: configuration, logger: quietLogger)
    try await publisher.connect()
    try await subscriber.connect()
    struct Tally {
        var received = 0
        var latencies: [UInt64] = []
        var waiter: (Int, CheckedContinuation<Void, Never>)?
    }
    let tally = NIOLockedValueBox(Tally())
    try subscriber.subscribe(to: "raw.bench") { message in
        let now = monotonicNanoseconds()
        let sentAt = UInt64(message.headers["Sent-At"] ?? "0") ?? 0
        let waiter = tally.withLockedValue { tally -> CheckedContinuation<Void, Never>? in
            tally.received += 1
            tally.latencies.append(now &- sentAt)
            guard let (target, continuation) = tally.waiter, tally.received >= target else { return nil }
            tally.waiter = nil
            return continuation
        }
        waiter?.resume()
    }
    try await subscriber.flush()
    let encoder = JSONEncoder()

    func send(_ index: Int) throws {
        let body = try encoder.encode(BenchOrder(orderID: index, customerID: index % 97, amount: 12.5, sentAt: 0))
        var headers = NATSHeaders()
        headers.append("Nats-Msg-Id", "0AF76519-16CD-43DD-8448-EB211C80319C")  // same size, no id cost
        headers.append("Eds-Event", "bench.order")
        headers.append("Eds-Event-Version", "1")
        headers.append("Eds-Source", "bench")
        headers.append("Sent-At", String(monotonicNanoseconds()))
        try publisher.publish(ByteBuffer(bytes: body), to: "raw.bench", headers: headers)
    }

    func waitFor(_ target: Int) async {
        await withCheckedContinuation { continuation in
            let reached = tally.withLockedValue { tally -> Bool in
                if tally.received >= target { return true }
                tally.waiter = (target, continuation)
                return false
            }
            if reached { continuation.resume() }
        }
    }

    let started = monotonicNanoseconds()
    for index in 1...count {
        do {
            try send(index)
        } catch NATSError.outboundBufferFull {
            try await publisher.flush()
            try send(index)
        }
        if index % 4_096 == 0 { try await publisher.flush() }
    }
    await waitFor(count)
    let rate = Double(count) / (Double(monotonicNanoseconds() - started) / 1e9)
    tally.withLockedValue { $0.latencies = [] }
    for index in 1...latencySamples {
        try send(index)
        try await Task.sleep(for: .microseconds(paceMicroseconds))
    }
    await waitFor(count + latencySamples)
    let latencies = tally.withLockedValue { $0.latencies }
    await publisher.close()
    await subscriber.close()
    return (rate, percentile(latencies, 50), percentile(latencies, 99))
}
