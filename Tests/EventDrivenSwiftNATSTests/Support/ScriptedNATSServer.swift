// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// A pretend NATS server on a free loopback port that plays a script: what it sends when a
/// connection opens (`greeting`, by connection number from 1) and what it answers to each line
/// the client sends (`answer`). It records every line, and can send anything at any time
/// (``send(_:on:)``): the hostile frames a real server never sends. With `tls`, the TLS
/// handshake comes first (TLS-first). A connection is closed right after the answer to a line
/// for which `closesAfter` holds (the answer and the close leave together). `receiveBuffer`
/// sets the connections' `SO_RCVBUF`: small, what a client writes while the server does not
/// read (``setReading(_:on:)``) stays in the client.
final class ScriptedNATSServer: Sendable {
    typealias Answer = @Sendable (_ line: String, _ connection: Int) -> String?
    typealias Closes = @Sendable (_ line: String, _ connection: Int) -> Bool

    static let plainInfo =
        "INFO {\"server_id\":\"scripted\",\"version\":\"2.9.0\",\"proto\":1,\"headers\":true,\"max_payload\":1048576}\r\n"

    let port: Int
    private let channel: any Channel
    private let group: MultiThreadedEventLoopGroup
    private let state = NIOLockedValueBox(State())

    private struct State {
        var lines: [[String]] = []
        var channels: [any Channel] = []
        var closed: Set<Int> = []
    }

    init(
        host: String = "127.0.0.1", tls: NIOSSLContext? = nil,
        greeting: @escaping @Sendable (_ connection: Int) -> String = { _ in plainInfo },
        answer: @escaping Answer = { line, _ in line == "PING" ? "PONG\r\n" : nil },
        closesAfter: @escaping Closes = { _, _ in false }, receiveBuffer: Int? = nil
    ) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let state = self.state
        var bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        if let receiveBuffer {
            // Set on the listening socket, so that accepted ones have it from their start.
            bootstrap = bootstrap.serverChannelOption(
                .socketOption(.so_rcvbuf), value: SocketOptionValue(receiveBuffer))
        }
        let channel =
            try await bootstrap
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
                    try channel.pipeline.syncOperations.addHandler(
                        Handler(state: state, greeting: greeting, answer: answer, closesAfter: closesAfter))
                }
            }
            .bind(host: host, port: 0).get()
        self.group = group
        self.channel = channel
        self.port = channel.localAddress?.port ?? 0
    }

    var url: String { "nats://127.0.0.1:\(port)" }

    /// The subject of the first `SUB` line on connection `number` with the given prefix, and its sid.
    func subscription(startingWith prefix: String, on number: Int = 1) -> (subject: String, sid: String)? {
        for line in lines(of: number) where line.hasPrefix("SUB \(prefix)") {
            let words = line.split(separator: " ")
            return (String(words[1]), String(words[words.count - 1]))
        }
        return nil
    }

    /// How many connections were opened so far.
    var connectionCount: Int { state.withLockedValue { $0.lines.count } }

    /// The lines connection `number` sent.
    func lines(of number: Int) -> [String] {
        state.withLockedValue { number <= $0.lines.count ? $0.lines[number - 1] : [] }
    }

    /// Whether connection `number` was closed.
    func isClosed(_ number: Int) -> Bool { state.withLockedValue { $0.closed.contains(number) } }

    /// Sends `bytes` on connection `number`.
    func send(_ bytes: String, on number: Int) {
        guard let channel = state.withLockedValue({ number <= $0.channels.count ? $0.channels[number - 1] : nil })
        else { return }
        channel.writeAndFlush(ByteBuffer(string: bytes), promise: nil)
    }

    /// Stops (or resumes) reading connection `number`: what the client writes then waits in the
    /// sockets' buffers, and then in the client.
    func setReading(_ reading: Bool, on number: Int) async throws {
        guard let channel = state.withLockedValue({ number <= $0.channels.count ? $0.channels[number - 1] : nil })
        else { return }
        try await channel.setOption(ChannelOptions.autoRead, value: reading).get()
    }

    func shutdown() async {
        let channels = state.withLockedValue { $0.channels }
        for child in channels { try? await child.close() }
        try? await channel.close()
        try? await group.shutdownGracefully()
    }

    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        private let state: NIOLockedValueBox<State>
        private let greeting: @Sendable (Int) -> String
        private let answer: Answer
        private let closesAfter: Closes
        private var number = 0
        private var greeted = false
        private var buffered: [UInt8] = []

        init(
            state: NIOLockedValueBox<State>, greeting: @escaping @Sendable (Int) -> String, answer: @escaping Answer,
            closesAfter: @escaping Closes
        ) {
            self.state = state
            self.greeting = greeting
            self.answer = answer
            self.closesAfter = closesAfter
        }

        func channelActive(context: ChannelHandlerContext) {
            let channel = context.channel
            number = state.withLockedValue { state in
                state.lines.append([])
                state.channels.append(channel)
                return state.lines.count
            }
            // With TLS-first, the TLS handler holds this until its handshake is done.
            greet(context)
            context.fireChannelActive()
        }

        private func greet(_ context: ChannelHandlerContext) {
            guard !greeted else { return }
            greeted = true
            send(greeting(number), context: context)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            buffered += Array(unwrapInboundIn(data).readableBytesView)
            // Lines are taken from `start` on and removed together: one read may hold thousands.
            var start = buffered.startIndex
            defer { buffered.removeSubrange(..<start) }
            while let end = buffered[start...].firstIndex(of: UInt8(ascii: "\n")) {
                var line = String(decoding: buffered[start..<end], as: UTF8.self)
                if line.hasSuffix("\r") { line.removeLast() }
                start = end + 1
                let number = self.number
                state.withLockedValue { $0.lines[number - 1].append(line) }
                if let reply = answer(line, number) { send(reply, context: context) }
                if closesAfter(line, number) {
                    context.close(promise: nil)
                    return
                }
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            let number = self.number
            state.withLockedValue { _ = $0.closed.insert(number) }
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }

        private func send(_ text: String, context: ChannelHandlerContext) {
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: text)), promise: nil)
        }
    }
}
