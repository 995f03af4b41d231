import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A blocking HTTP/1.1 client on one keep-alive connection, as light as a sender can be, so that
/// the process's CPU time over a run is the receiver's. Used from one thread at a time.
final class RawClient {
    private var descriptor: Int32 = -1
    private let port: Int
    private let path: String

    init(port: Int, path: String) {
        self.port = port
        self.path = path
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// POSTs `body` and returns the status (0 when the connection failed).
    func post(_ body: Data) -> Int {
        if descriptor < 0 { descriptor = Self.connect(port: port, from: "127.0.0.1") }
        guard descriptor >= 0 else { return 0 }
        let request = Data("POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body
        let sent = request.withUnsafeBytes { Self.sendAll(descriptor, $0) }
        guard sent else { return reset() }
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { return reset() }
            received += buffer[0..<count]
            if let (status, complete) = Self.parse(received), complete { return status }
        }
    }

    private func reset() -> Int {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        return 0
    }

    /// The status, and whether the whole body (by Content-Length) is there. Read from the bytes
    /// without building strings or arrays: as a String split into lines, the answer's head cost
    /// the client 8 to 13 µs, more for a refusal's longer head than for a 200's, and the process's
    /// CPU time is meant to be the receiver's.
    static func parse(_ bytes: [UInt8]) -> (Int, Bool)? {
        bytes.withUnsafeBufferPointer { buffer -> (Int, Bool)? in
            guard buffer.count >= 12 else { return nil }
            // The blank line that ends the head.
            var end = 0
            while end <= buffer.count - 4,
                  !(buffer[end] == 13 && buffer[end + 1] == 10 && buffer[end + 2] == 13 && buffer[end + 3] == 10) {
                end += 1
            }
            guard end <= buffer.count - 4 else { return nil }
            // "HTTP/1.1 200 ...": the digits after the first space.
            var index = 0
            while index < end, buffer[index] != UInt8(ascii: " ") { index += 1 }
            let status = number(buffer, from: index + 1, to: end)
            // Each line after the status line, "Content-Length:" in any case.
            let name = contentLength
            var length = 0
            var line = 0
            while line < end {
                var next = line
                while next < end, buffer[next] != 10 { next += 1 }
                if next - line > name.count, (0..<name.count).allSatisfy({ buffer[line + $0] | 0x20 == name[$0] }) {
                    length = number(buffer, from: line + name.count, to: next)
                }
                line = next + 1
            }
            return (status, buffer.count - end - 4 >= length)
        }
    }

    private static let contentLength = Array("content-length:".utf8)

    /// The decimal number at `from` (after spaces and tabs), up to the first other byte before `to`.
    private static func number(_ buffer: UnsafeBufferPointer<UInt8>, from: Int, to: Int) -> Int {
        var index = from
        while index < to, buffer[index] == UInt8(ascii: " ") || buffer[index] == UInt8(ascii: "\t") { index += 1 }
        var value = 0
        while index < to, buffer[index] >= UInt8(ascii: "0"), buffer[index] <= UInt8(ascii: "9") {
            value = value * 10 + Int(buffer[index] - UInt8(ascii: "0"))
            index += 1
        }
        return value
    }

    static func sendAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = send(descriptor, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// A TCP connection to 127.0.0.1:`port` from the loopback address `source` (-1 when refused).
    static func connect(port: Int, from source: String) -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return -1 }
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        _ = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        remote.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            return -1
        }
        return descriptor
    }
}

/// Connections that send a request one byte a second and never finish it, each from a loopback
/// address of its own (127.0.1.x, ...): reopened as soon as the receiver cuts one, as a steady
/// trickle of slow clients would be.
final class SlowTrickle: @unchecked Sendable {
    private let lock = NSLock()
    private var running = true
    private var reopened = 0
    private let done = DispatchSemaphore(value: 0)

    init(count: Int, port: Int, path: String) {
        let head = Data("POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n".utf8)
        let sources = (0..<count).map { "127.0.\(1 + $0 / 250).\(1 + $0 % 250)" }
        Thread { [self] in
            var sockets = [Int32](repeating: -1, count: count)
            var offsets = [Int](repeating: 0, count: count)
            while lock.withLock({ running }) {
                for index in 0..<count {
                    if sockets[index] < 0 {
                        sockets[index] = RawClient.connect(port: port, from: sources[index])
                        guard sockets[index] >= 0 else { continue }
                        _ = fcntl(sockets[index], F_SETFL, fcntl(sockets[index], F_GETFL) | O_NONBLOCK)
                        offsets[index] = 0
                    }
                    var probe: UInt8 = 0
                    let read = recv(sockets[index], &probe, 1, Int32(MSG_PEEK))
                    // The head arrives one byte a second too, then the body.
                    var byte = offsets[index] < head.count ? head[offsets[index]] : UInt8(ascii: "x")
                    offsets[index] += 1
                    if read >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK) || send(sockets[index], &byte, 1, Int32(MSG_NOSIGNAL)) != 1 {
                        // Answered (408) or closed: a new slow client takes its place.
                        close(sockets[index])
                        sockets[index] = -1
                        lock.withLock { reopened += 1 }
                    }
                }
                Thread.sleep(forTimeInterval: 1)
            }
            for descriptor in sockets where descriptor >= 0 { close(descriptor) }
            done.signal()
        }.start()
    }

    /// Connections the receiver answered or closed, each replaced by a new one.
    var replaced: Int { lock.withLock { reopened } }

    func stop() {
        lock.withLock { running = false }
        done.wait()
    }
}
