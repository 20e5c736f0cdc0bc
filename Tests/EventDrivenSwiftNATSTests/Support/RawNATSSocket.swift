// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A plain TCP socket speaking hand-written NATS protocol: the wire format checked without our client.
final class RawNATSSocket {
    private let descriptor: Int32
    private var received = ""

    init(port: Int) throws {
        #if canImport(Glibc)
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else { throw RawError.connect }
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let written = bytes[sent...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard written > 0 else { return }
            sent += written
        }
    }

    /// Everything received so far, answering `PING`s.
    func read() -> String {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            received += String(decoding: buffer[0..<count], as: UTF8.self)
        }
        if received.contains("PING\r\n") {
            received = received.replacingOccurrences(of: "PING\r\n", with: "")
            send("PONG\r\n")
        }
        return received
    }

    /// Reads until `condition` holds for what was received, or the deadline.
    func read(until timeout: Duration, _ condition: (String) -> Bool) async -> String {
        _ = await poll(timeout: timeout) { condition(self.read()) }
        return received
    }

    /// `CONNECT` with headers, then `PING`, and waits for the `PONG`.
    func handshake() async -> Bool {
        send("CONNECT {\"verbose\":false,\"headers\":true,\"protocol\":1}\r\nPING\r\n")
        return await read(until: .seconds(5)) { $0.contains("PONG") }.contains("PONG")
    }

    enum RawError: Error { case connect }
}
