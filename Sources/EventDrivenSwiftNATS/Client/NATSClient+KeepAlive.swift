// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import NIOCore

extension NATSClient {
    /// Starts sending keep-alive `PING`s on `channel` every
    /// ``NATSClientConfiguration/pingInterval``; `nil` when the keep-alive is off.
    func startKeepAlive(on channel: any Channel) -> RepeatedTask? {
        let interval = configuration.pingInterval
        guard interval > .zero else { return nil }
        return channel.eventLoop.scheduleRepeatedTask(
            initialDelay: TimeAmount(interval), delay: TimeAmount(interval)
        ) { [weak self] task in
            guard let self else {
                task.cancel()
                return
            }
            self.keepAlive(channel)
        }
    }

    /// One tick of the keep-alive, on `channel`'s event loop: another `PING`, or, with
    /// ``NATSClientConfiguration/maximumPingsOutstanding`` still unanswered, the end of a stale
    /// connection. Closing the channel takes the ordinary lost-connection path: pending requests
    /// fail with ``NATSError/connectionLost``, and the client reconnects with backoff and
    /// re-establishes its subscriptions.
    private func keepAlive(_ channel: any Channel) {
        enum Step {
            case nothing
            case write
            case stale(unanswered: Int)
        }
        let maximum = max(1, configuration.maximumPingsOutstanding)
        let step = state.withLockedValue { state -> Step in
            guard let current = state.channel, current === channel else { return .nothing }
            guard state.pingsOutstanding < maximum else { return .stale(unanswered: state.pingsOutstanding) }
            state.pingsOutstanding += 1
            // Written whatever the outbound limit: it is tiny, and refusing it would count as a
            // refused publish and blind the client to a dead connection.
            state.pongWaiters.append(nil)
            NATSCommandEncoder.ping(into: &state.pending)
            guard !state.flushScheduled else { return .nothing }
            state.flushScheduled = true
            return .write
        }
        switch step {
        case .nothing:
            break
        case .write:
            writePending(to: channel)
        case .stale(let unanswered):
            counters.staleConnections.add(1, ordering: .relaxed)
            logger.warning("NATS connection stale: \(unanswered) PINGs unanswered; reconnecting")
            channel.close(promise: nil)
            // Closing a channel that is closed already fires no inactive event: the connection
            // is handed to the lost-connection path here, whatever the close does.
            connectionLost(channel)
        }
    }
}
