// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child process whose stdout (and optionally stderr) lines are collected as they arrive.
final class ChildProcess: Sendable {
    private struct Lines: Sendable {
        var stdout: [String] = []
        var stdoutTimes: [ContinuousClock.Instant] = []
        var stderr: [String] = []
        var partial: [String: String] = [:]
    }

    let process: Process
    private let lines = NIOLockedValueBox(Lines())

    init(_ executable: URL, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        self.process = process
        try process.run()
        Self.read(out.fileHandleForReading, into: lines, stream: "out")
        Self.read(err.fileHandleForReading, into: lines, stream: "err")
    }

    var pid: Int32 { process.processIdentifier }
    var stdout: [String] { lines.withLockedValue { $0.stdout } }
    var stderr: [String] { lines.withLockedValue { $0.stderr } }
    /// The stdout lines with the time each was read.
    var timedStdout: [(ContinuousClock.Instant, String)] {
        lines.withLockedValue { Array(zip($0.stdoutTimes, $0.stdout)) }
    }

    /// Reads `handle` to its end on a thread of its own, with blocking `read(2)` calls.
    ///
    /// Not `FileHandle.readabilityHandler`: on Linux that is a dispatch read source, and a pipe
    /// closed while its source is still registered crashed the whole test process inside
    /// libdispatch's event loop (`_dispatch_event_loop_drain`). The thread holds the handle, so
    /// its descriptor stays open until the child has closed its end.
    private static func read(_ handle: FileHandle, into lines: NIOLockedValueBox<Lines>, stream: String) {
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { readBytes(handle.fileDescriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                let text = String(decoding: buffer[0..<count], as: UTF8.self)
                lines.withLockedValue { lines in
                    var pending = (lines.partial[stream] ?? "") + text
                    var complete: [String] = []
                    while let newline = pending.firstIndex(of: "\n") {
                        complete.append(String(pending[..<newline]))
                        pending = String(pending[pending.index(after: newline)...])
                    }
                    lines.partial[stream] = pending
                    if stream == "out" {
                        lines.stdout += complete
                        lines.stdoutTimes += Array(repeating: ContinuousClock.now, count: complete.count)
                    } else {
                        lines.stderr += complete
                    }
                }
            }
            withExtendedLifetime(handle) {}
        }
    }

    /// Waits until `condition` holds for the stdout lines, or `timeout` passed; returns whether it held.
    @discardableResult
    func waitForStdout(timeout: Duration, _ condition: ([String]) -> Bool) async -> Bool {
        await poll(timeout: timeout) { condition(self.stdout) }
    }

    /// Waits until the stderr lines satisfy `condition`.
    @discardableResult
    func waitForStderr(timeout: Duration, _ condition: ([String]) -> Bool) async -> Bool {
        await poll(timeout: timeout) { condition(self.stderr) }
    }

    func terminate() { if process.isRunning { process.terminate() } }
    func kill9() { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

    /// Waits for the process to exit (bounded) and returns its status, or `nil` if it is still running.
    func waitForExit(timeout: Duration) async -> Int32? {
        let exited = await poll(timeout: timeout) { !self.process.isRunning }
        return exited ? process.terminationStatus : nil
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

/// Polls `condition` every 10 ms until it holds or `timeout` passes: a bounded wait on a real
/// condition, never a fixed sleep.
func poll(timeout: Duration, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// The directory holding the built products (the demo executable sits beside the test bundle).
func productsDirectory() -> URL {
    #if os(macOS)
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
    #endif
    let executable = URL(
        fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0])
    var directory = executable.deletingLastPathComponent()
    // On Linux the test runner is `<products>/<Package>PackageTests.xctest`, a file.
    while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("NATSBridgeDemo").path),
        directory.path != "/"
    {
        directory = directory.deletingLastPathComponent()
    }
    return directory
}

var demoExecutable: URL { productsDirectory().appendingPathComponent("NATSBridgeDemo") }

/// `read(2)`, named apart from `ChildProcess.read(_:into:stream:)`.
private func readBytes(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
        Glibc.read(descriptor, buffer, count)
    #else
        Darwin.read(descriptor, buffer, count)
    #endif
}
