// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Foundation
import Testing

@testable import EventDrivenSwiftNATS

/// A Python interpreter with nats-py: `$EDS_INTEROP_PYTHON`, else the virtual environment
/// `.build-python` at the package's root (`python3 -m venv .build-python &&
/// .build-python/bin/pip install nats-py`).
let interopPython: String? = {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    let candidates: [String?] = [
        ProcessInfo.processInfo.environment["EDS_INTEROP_PYTHON"],
        root.appendingPathComponent(".build-python/bin/python").path,
    ]
    return candidates.compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) }
}()

let interopScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Benchmarks/tools/nats-interop.py")

/// Another language on the documented wire format (SPEC X5, issue 28 §3): nats-py.
extension NATSServerTests {
    struct PythonLine: Decodable {
        var orderID: Int
        var epoch: Double
        var event: String?
        var version: String?
        var format: String?
        var contentType: String?
        var msgId: String?
    }

    @Test(
        "X5: a Python nats-py client consumes what the bridge publishes and publishes what it consumes, dates included",
        .enabled(if: interopPython != nil))
    func pythonInterop() async throws {
        try await withNATSServer { server in
            let events = NATSEventRegistry()
            try events.register(Shipment.self, name: "shipments", version: 1)
            let bridge = try NATSBridge(bus: EventBus(), events: events, server: server.url, logger: quietLogger)
            let received = Collected<Shipment>()
            try bridge.listen(Shipment.self, mode: .group("swift")) { shipment, _ in received.append(shipment) }
            let running = Task { try await bridge.run() }
            try await bridge.waitUntilRunning()
            // Swift → Python.
            let date = Date(timeIntervalSince1970: 1_795_000_000.125)
            try await bridge.publishAndWait(Shipment(orderID: 1, shippedAt: date))
            let consumer = try ChildProcess(
                URL(fileURLWithPath: interopPython!), [interopScript.path, "consume", server.url, "1"])
            #expect(await consumer.waitForExit(timeout: .seconds(30)) == 0, "\(consumer.stderr)")
            let line = try JSONDecoder().decode(PythonLine.self, from: Data((consumer.stdout.first ?? "").utf8))
            #expect(line.orderID == 1 && abs(line.epoch - date.timeIntervalSince1970) < 0.001)
            #expect(line.event == "shipments" && line.version == "1" && line.format == "1")
            #expect(line.contentType == "application/json" && line.msgId != nil)
            // Python → Swift, with the date as Python writes it (microseconds, +00:00).
            let publisher = try ChildProcess(
                URL(fileURLWithPath: interopPython!),
                [interopScript.path, "publish", server.url, "2", "2026-11-18T11:06:40.250000+00:00"])
            #expect(await publisher.waitForExit(timeout: .seconds(30)) == 0, "\(publisher.stderr)")
            #expect(await poll(timeout: .seconds(60)) { received.values.contains { $0.orderID == 2 } })
            let fromPython = received.values.first { $0.orderID == 2 }
            #expect(fromPython?.shippedAt == Date(timeIntervalSince1970: 1_795_000_000.25))
            #expect(bridge.statistics.deadLettered == 0)
            bridge.shutdown()
            try await running.value
        }
    }
}
