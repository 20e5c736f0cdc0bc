import NIOCore

/// Reads a connection's bytes into frames, runs the `INFO` → `CONNECT` → `PING`/`PONG`
/// handshake (with the TLS upgrade between `INFO` and `CONNECT`), answers the server's `PING`,
/// and hands every later frame to the client, all the frames of one read together. Lives on its
/// channel's event loop only.
final class _NATSChannelHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    struct Hooks: Sendable {
        /// The `CONNECT` JSON for the server that sent this `INFO`.
        var connectJSON: @Sendable (NATSServerInfo) -> String
        /// A TLS handler to put first in the pipeline, when TLS is to be used with this server.
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
    private var cumulation: ByteBuffer?
    private let parser = NATSProtocolParser()
    private let handshake: EventLoopPromise<NATSServerInfo>
    private var info: NATSServerInfo?
    private let hooks: Hooks
    /// Frames of the current read for ``Hooks/frames``.
    private var ready: [NATSServerFrame] = []

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
            if let buffer = cumulation, buffer.readableBytes == 0 { cumulation = nil }
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
        if case .ping = frame {
            var out = context.channel.allocator.buffer(capacity: 6)
            NATSCommandEncoder.pong(into: &out)
            context.writeAndFlush(wrapOutboundOut(out), promise: nil)
            return
        }
        switch phase {
        case .awaitingInfo:
            guard case .info(let info) = frame else {
                throw NATSError.protocolError("expected INFO first")
            }
            self.info = info
            if let tls = try hooks.tlsHandler(info) {
                try context.pipeline.syncOperations.addHandler(tls, position: .first)
            }
            var out = context.channel.allocator.buffer(capacity: 256)
            NATSCommandEncoder.connect(json: hooks.connectJSON(info), into: &out)
            NATSCommandEncoder.ping(into: &out)
            context.writeAndFlush(wrapOutboundOut(out), promise: nil)
            phase = .awaitingPong
        case .awaitingPong:
            switch frame {
            case .pong:
                phase = .ready
                handshake.succeed(info!)
            case .error(let detail):
                fail(.serverError(detail), context: context)
            case .ok, .info:
                break
            default:
                throw NATSError.protocolError("unexpected frame during the handshake")
            }
        case .ready:
            ready.append(frame)
        case .closed:
            break
        }
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
        if case .protocolError = error { hooks.protocolError(error) }
        let wasReady = phase == .ready
        phase = .closed
        if !wasReady { handshake.fail(error) }
        context.close(promise: nil)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { hooks.writable(context.channel) }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        let wasReady = phase == .ready
        if phase == .awaitingInfo || phase == .awaitingPong {
            handshake.fail(NATSError.connectionLost)
        }
        phase = .closed
        if wasReady { hooks.inactive(context.channel) }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if phase == .awaitingInfo || phase == .awaitingPong {
            let natsError = (error as? NATSError) ?? .tlsFailed("\(error)")
            phase = .closed
            handshake.fail(natsError)
        }
        context.close(promise: nil)
    }
}
