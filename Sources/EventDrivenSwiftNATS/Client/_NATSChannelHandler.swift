// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import NIOCore

/// Reads a connection's bytes into frames, runs the `INFO` → `CONNECT` → `PING`/`PONG`
/// handshake (with the TLS upgrade between `INFO` and `CONNECT`, or TLS from the first byte),
/// answers the server's `PING`, and hands every later frame to the client, all the frames of
/// one read together. Lives on its channel's event loop only.
///
/// When TLS is used, nothing read in plaintext but the `INFO` line is trusted: bytes that came
/// with it, or after it before the upgrade, are a protocol error, and the handshake completes
/// only on a `PONG` read through TLS.
final class _NATSChannelHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    struct Hooks: Sendable {
        /// The `CONNECT` JSON for the server that sent this `INFO` (which may carry a nonce to
        /// sign).
        var connectJSON: @Sendable (NATSServerInfo) throws -> String
        /// A TLS handler to put first in the pipeline, when TLS is to be used with this server
        /// and is not already (TLS-first).
        var tlsHandler: @Sendable (NATSServerInfo) throws -> (any ChannelHandler)?
        /// The frames after the handshake that one read brought, in order.
        var frames: @Sendable ([NATSServerFrame]) -> Void
        /// The connection closed after the handshake.
        var inactive: @Sendable (any Channel) -> Void
        /// The channel became writable again.
        var writable: @Sendable (any Channel) -> Void
        /// The server sent bytes that are not the protocol.
        var protocolError: @Sendable (NATSError) -> Void
    }

    private enum Phase { case awaitingInfo, awaitingPong, ready, closed }

    private var phase = Phase.awaitingInfo
    /// Whether the handshake succeeded: a later close is a lost connection to report.
    private var wasReady = false
    private var cumulation: ByteBuffer?
    /// The capacity of the buffer holding what was read and not yet parsed (tests read it).
    var cumulationCapacity: Int { cumulation?.capacity ?? 0 }
    private var parser = NATSProtocolParser()
    private let handshake: EventLoopPromise<NATSServerInfo>
    private var info: NATSServerInfo?
    private let hooks: Hooks
    /// Frames of the current read for ``Hooks/frames``.
    private var ready: [NATSServerFrame] = []
    /// Whether a `PONG` was written and is not yet out of the channel.
    private var pongInFlight = false
    /// Whether a `PING` came while it was: one more `PONG` is due once it is out.
    private var pongOwed = false

    init(handshake: EventLoopPromise<NATSServerInfo>, hooks: Hooks) {
        self.handshake = handshake
        self.hooks = hooks
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        if cumulation == nil || cumulation!.readableBytes == 0 {
            cumulation = incoming
        } else {
            cumulation!.writeBuffer(&incoming)
        }
        do {
            while phase != .closed, var buffer = cumulation, let frame = try parser.parse(&buffer) {
                cumulation = buffer
                try handle(frame, context: context)
            }
            if let buffer = cumulation {
                if buffer.readableBytes == 0 {
                    cumulation = nil
                } else if buffer.readableBytes > parser.maximumFrameBytes {
                    // The parser refuses larger frames as soon as they are announced; this is the backstop.
                    throw NATSError.protocolError("more than \(parser.maximumFrameBytes) bytes without a whole frame")
                } else if buffer.readerIndex > 65_536, buffer.readerIndex > buffer.readableBytes {
                    // The parsed bytes go once they outweigh the partial frame kept (each byte is
                    // moved a bounded number of times): reads that all end inside a frame (a PING
                    // flood read faster than it is sent) grew this buffer by every byte read.
                    cumulation!.discardReadBytes()
                }
            }
            handOver()
        } catch let error as NATSError {
            handOver()
            fail(error, context: context)
        } catch {
            handOver()
            fail(.protocolError("\(error)"), context: context)
        }
    }

    private func handle(_ frame: NATSServerFrame, context: ChannelHandlerContext) throws {
        switch phase {
        case .awaitingInfo:
            guard case .info(let info) = frame else {
                throw NATSError.protocolError("expected INFO first")
            }
            self.info = info
            parser.maximumPayload = NATSProtocolParser.capped(maxPayload: info.maxPayload)
            if let tls = try hooks.tlsHandler(info) {
                // Whatever came with INFO was read in plaintext: a server does not send it.
                if let rest = cumulation, rest.readableBytes > 0 {
                    throw NATSError.protocolError(
                        "\(rest.readableBytes) plaintext bytes after INFO where the TLS handshake was due")
                }
                cumulation = nil
                try context.pipeline.syncOperations.addHandler(tls, position: .first)
            }
            var out = context.channel.allocator.buffer(capacity: 256)
            NATSCommandEncoder.connect(json: try hooks.connectJSON(info), into: &out)
            NATSCommandEncoder.ping(into: &out)
            context.writeAndFlush(wrapOutboundOut(out), promise: nil)
            phase = .awaitingPong
        case .awaitingPong:
            switch frame {
            case .pong:
                phase = .ready
                wasReady = true
                handshake.succeed(info!)
            case .ping:
                answerPing(context: context)
            case .error(let detail):
                fail(.serverError(detail), context: context)
            case .ok, .info:
                break
            case .message:
                throw NATSError.protocolError("a message during the handshake")
            }
        case .ready:
            if case .ping = frame {
                answerPing(context: context)
                return
            }
            if case .info(let info) = frame {
                parser.maximumPayload = NATSProtocolParser.capped(maxPayload: info.maxPayload)
            }
            ready.append(frame)
        case .closed:
            break
        }
    }

    /// Answers a server's `PING`. One `PONG` at most is on its way at a time: `PING`s that come
    /// while it is not yet written (a server that sends `PING`s and does not read) are answered
    /// by one more `PONG` once it is, so what waits to be written stays a few bytes, not one
    /// `PONG` per `PING`. A server counts any `PONG` as the answer to all its `PING`s.
    private func answerPing(context: ChannelHandlerContext) {
        guard !pongInFlight else {
            pongOwed = true
            return
        }
        pongInFlight = true
        pongOwed = false
        var out = context.channel.allocator.buffer(capacity: 6)
        NATSCommandEncoder.pong(into: &out)
        let written = context.eventLoop.makePromise(of: Void.self)
        written.futureResult.assumeIsolated().whenComplete { [self] result in
            pongInFlight = false
            guard case .success = result, pongOwed, phase != .closed else { return }
            answerPing(context: context)
        }
        context.writeAndFlush(wrapOutboundOut(out), promise: written)
    }

    /// Gives the client what this read brought: one call, so that it takes its lock once per read
    /// rather than once or twice per message.
    private func handOver() {
        guard !ready.isEmpty else { return }
        let frames = ready
        ready.removeAll(keepingCapacity: true)
        hooks.frames(frames)
    }

    private func fail(_ error: NATSError, context: ChannelHandlerContext) {
        guard phase != .closed else { return }
        if case .protocolError = error { hooks.protocolError(error) }
        if !wasReady { handshake.fail(error) }
        phase = .closed
        cumulation = nil
        context.close(promise: nil)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { hooks.writable(context.channel) }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !wasReady { handshake.fail(NATSError.connectionLost) }
        phase = .closed
        if wasReady { hooks.inactive(context.channel) }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !wasReady, phase != .closed {
            let natsError = (error as? NATSError) ?? .tlsFailed("\(error)")
            phase = .closed
            handshake.fail(natsError)
        }
        context.close(promise: nil)
    }
}
