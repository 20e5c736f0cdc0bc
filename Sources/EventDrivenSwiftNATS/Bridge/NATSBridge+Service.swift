// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import ServiceLifecycle

extension NATSBridge {
    /// Connects, creates or checks the stream and consumers, and imports until graceful shutdown,
    /// task cancellation or ``shutdown()``. Then stops fetching, handles and acknowledges what it
    /// holds, waits for pending publish acknowledgements, and closes the connection.
    /// - Throws: ``NATSBridgeError/invalidConfiguration(_:)`` at once, before connecting, for a
    ///   configuration that ``NATSBridgeConfiguration/validate()`` refuses; what connecting or
    ///   checking the broker's configuration throws
    ///   (``NATSBridgeError/configurationMismatch(_:)`` among them,
    ///   ``NATSError/authorizationFailed(_:)`` for refused credentials); after a start, the error
    ///   that closed the connection for good (credentials refused again and again while
    ///   reconnecting), once the bridge has stopped.
    public func run() async throws {
        let importers = state.withLockedValue { state -> [_Importer]? in
            guard state.phase == .idle else { return nil }
            state.phase = .starting
            return state.importers
        }
        guard let importers else { throw NATSBridgeError.notRunning }
        gate.set(.open)
        do {
            try configuration.validate()
            try await transport.start()
            if let nats = transport as? NATSJetStreamTransport {
                nats.client.whenClosed { [weak self] reason in
                    guard let self, let reason else { return }
                    self.state.withLockedValue { $0.failure = reason }
                    self.logger.error("the bridge stops: \(reason)")
                    self.shutdown()
                }
            }
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for importer in importers {
                    tasks.addTask {
                        try await withCheckedThrowingContinuation { (ready: CheckedContinuation<Void, any Error>) in
                            Task { await importer.run { ready.resume(with: $0) } }
                        }
                    }
                }
                try await tasks.waitForAll()
            }
        } catch {
            for importer in importers { importer.stop() }
            finishStart(error)
            await transport.stop()
            throw error
        }
        finishStart(nil)
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await waitForShutdownRequest()
            } onGracefulShutdown: {
                self.shutdown()
            }
        } onCancel: {
            self.shutdown()
        }
        await stopEverything()
        if let failure = state.withLockedValue({ $0.failure }) { throw failure }
    }

    /// Returns once ``run()`` has connected and set up the broker.
    /// - Throws: what ``run()`` threw while starting.
    public func waitUntilRunning() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let outcome = state.withLockedValue { state -> Result<Void, any Error>? in
                switch state.phase {
                case .running: return .success(())
                case .stopping, .stopped: return .failure(state.startError ?? NATSBridgeError.notRunning)
                case .idle, .starting:
                    state.readyWaiters.append(continuation)
                    return nil
                }
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    /// Asks ``run()`` to stop gracefully; it returns once it has.
    public func shutdown() {
        let waiter = state.withLockedValue { state in
            state.stopRequested = true
            defer { state.stopWaiter = nil }
            return state.stopWaiter
        }
        waiter?.resume()
    }

    private func finishStart(_ error: (any Error)?) {
        if error != nil { gate.set(.closed) }
        let waiters = state.withLockedValue { state in
            state.phase = error == nil ? .running : .stopped
            state.startError = error
            defer { state.readyWaiters = [] }
            return state.readyWaiters
        }
        for waiter in waiters {
            if let error { waiter.resume(throwing: error) } else { waiter.resume() }
        }
    }

    private func waitForShutdownRequest() async {
        await withCheckedContinuation { continuation in
            let requested = state.withLockedValue { state -> Bool in
                if state.stopRequested { return true }
                state.stopWaiter = continuation
                return false
            }
            if requested { continuation.resume() }
        }
    }

    private func stopEverything() async {
        let (importers, handles) = state.withLockedValue { state in
            state.phase = .stopping
            return (state.importers, state.exportHandles)
        }
        for importer in importers { importer.stop() }
        await withTaskGroup(of: Void.self) { tasks in
            for importer in importers { tasks.addTask { await importer.waitUntilStopped() } }
        }
        for handle in handles { handle.cancel() }
        await waitForExports()
        await transport.stop()
        gate.set(.closed)
        let observers = state.withLockedValue { state in
            state.phase = .stopped
            defer { state.deadLetterObservers = [:] }
            return Array(state.deadLetterObservers.values)
        }
        for observer in observers { observer.finish() }
    }
}
