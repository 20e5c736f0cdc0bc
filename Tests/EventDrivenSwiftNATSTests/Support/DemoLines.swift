// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation

/// One stdout line of `NATSBridgeDemo`, decoded.
struct DemoLine: Decodable {
    var msgId: String?
    var orderID: Int?
    var pid: Int?
    var ready: Bool?
    var failed: String?
    var delivery: Int?
    var deadLetter: String?
    var reason: String?
    var produced: Int?
    var acknowledged: Int?
    var duplicates: Int?
    var unacknowledged: Int?
    var seconds: Double?
    var atMs: Double?

    enum CodingKeys: String, CodingKey {
        case msgId, orderID, pid, ready, failed, delivery, deadLetter, reason, produced, acknowledged, duplicates
        case unacknowledged, seconds, atMs
    }

    static func parse(_ line: String) -> DemoLine? {
        try? JSONDecoder().decode(DemoLine.self, from: Data(line.utf8))
    }

    /// A handled event: has a message id and an order id.
    var isHandled: Bool { msgId != nil && orderID != nil }
}

extension ChildProcess {
    var demoLines: [DemoLine] { stdout.compactMap(DemoLine.parse) }
    var handledOrderIDs: [Int] { demoLines.filter(\.isHandled).compactMap(\.orderID) }
    var handledCount: Int { stdout.lazy.filter { $0.hasPrefix("{\"msgId\"") }.count }
    var isReady: Bool { stdout.contains { $0.hasPrefix("{\"ready\":true") } }

    /// Waits until the worker says its consumer is set up.
    func waitUntilReady() async -> Bool {
        await waitForStdout(timeout: .seconds(30)) { lines in lines.contains { $0.hasPrefix("{\"ready\":true") } }
    }
}

/// Starts `count` workers with `arguments` after `work --server <url>`, and waits until all are ready.
func startWorkers(_ count: Int, server: NATSServerProcess, _ arguments: [String]) async throws -> [ChildProcess] {
    var workers: [ChildProcess] = []
    for _ in 0..<count {
        workers.append(try ChildProcess(demoExecutable, ["work", "--server", server.url] + arguments))
    }
    for worker in workers {
        let ready = await worker.waitUntilReady()
        if !ready { throw DemoError.notReady(worker.stderr.joined(separator: "\n")) }
    }
    return workers
}

/// Runs `produce` to completion and returns its summary line.
func produce(_ count: Int, server: NATSServerProcess, extra: [String] = [], timeout: Duration = .seconds(180))
    async throws -> (summary: DemoLine, process: ChildProcess)
{
    let producer = try ChildProcess(
        demoExecutable, ["produce", "--server", server.url, "--count", String(count)] + extra)
    guard await producer.waitForExit(timeout: timeout) != nil else {
        producer.kill9()
        throw DemoError.timedOut("producer: " + producer.stderr.suffix(5).joined(separator: "\n"))
    }
    // The last line can still be in the pipe when the process has exited.
    await producer.waitForStdout(timeout: .seconds(10)) { lines in lines.contains { $0.hasPrefix("{\"produced\"") } }
    guard let summary = producer.demoLines.last(where: { $0.produced != nil }) else {
        throw DemoError.noSummary(producer.stderr.joined(separator: "\n"))
    }
    return (summary, producer)
}

enum DemoError: Error {
    case notReady(String)
    case timedOut(String)
    case noSummary(String)
}
