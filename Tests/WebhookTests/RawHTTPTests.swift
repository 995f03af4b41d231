import DeskStore
import Foundation
import Testing
import WebhookReceiver
#if canImport(Glibc)
import Glibc
#endif

/// Requests no HTTP library sends: a body streamed in chunks past the limit, a body that stops arriving.
@Suite struct RawHTTPTests {
    /// Sends `parts` over one TCP connection and returns what came back before the server closed
    /// or 10 s passed. Runs on a thread of its own: blocking calls there hold up none of the
    /// threads the servers under test run on.
    static func exchange(port: Int, _ parts: [Data]) async -> String {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: blockingExchange(port: port, parts))
            }
            thread.start()
        }
    }

    private static func blockingExchange(port: Int, _ parts: [Data]) -> String {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return "" }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return "" }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        for part in parts {
            let sent = part.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 { break }  // the server answered and closed early
        }
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
            if let text = String(data: received, encoding: .utf8), let end = text.range(of: "\r\n\r\n"),
               let length = text[..<end.lowerBound].split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("content-length:") })
                .flatMap({ Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }),
               text[end.upperBound...].utf8.count >= length {
                break
            }
        }
        return String(decoding: received, as: UTF8.self)
    }

    @Test func aChunkedBodyIsCutAsSoonAsItPassesTheLimit() async throws {
        let bench = try await ReceiverBench.start()
        let head = Data("POST /appstore/notifications HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        let chunk = Data("10000\r\n".utf8) + Data(repeating: UInt8(ascii: "a"), count: 0x10000) + Data("\r\n".utf8)
        // 17 chunks of 64 KiB: 1 MiB and 64 KiB, no length given.
        let answer = await Self.exchange(port: bench.receiver.port, [head] + Array(repeating: chunk, count: 17) + [Data("0\r\n\r\n".utf8)])
        #expect(answer.hasPrefix("HTTP/1.1 400"))
        #expect(answer.contains("larger than 1048576 bytes"))
        let entry = try #require(try await bench.store.quarantined(QuarantineFilter()).first)
        #expect(entry.reason == "too-large")
        #expect(entry.truncated)
        #expect(entry.bodySize > 1 << 20)
        #expect(entry.body.count == 64 << 10)
        #expect(try await bench.store.notifications(NotificationFilter()).isEmpty)
        await bench.stop()
    }

    @Test func aBodyThatStopsArrivingIsAnswered408AndKept() async throws {
        let bench = try await ReceiverBench.start(configure: { $0.readTimeout = .milliseconds(500) })
        let head = Data("POST /appstore/notifications HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n".utf8)
        let started = ContinuousClock.now
        // Ten bytes of the hundred announced, then nothing.
        let answer = await Self.exchange(port: bench.receiver.port, [head + Data(#"{"signedPa"#.utf8)])
        #expect(answer.hasPrefix("HTTP/1.1 408"), "\(answer)")
        // The 408 itself says the read deadline cut it (an idle close answers nothing); this bound is for a busy machine.
        #expect(ContinuousClock.now - started < .seconds(60))
        let entry = try #require(try await bench.store.quarantined(QuarantineFilter()).first)
        #expect(entry.reason == "read-timeout", "\(entry.detail) after \(entry.elapsedMilliseconds) ms")
        #expect(entry.body == Data(#"{"signedPa"#.utf8))
        #expect(entry.answeredStatus == 408)
        await bench.stop()
    }
}
