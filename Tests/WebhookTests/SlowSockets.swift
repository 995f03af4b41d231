import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A bounded number of TCP connections to a receiver that send their request a few bytes at a
/// time, from a loopback source address of the test's choosing (127.0.0.2, ...), as a slow or
/// malicious sender does. One thread sends for all of them; `stop` closes them all.
final class SlowSockets: @unchecked Sendable {
    private let lock = NSLock()
    private var descriptors: [Int32] = []
    private var closedByServer: Set<Int32> = []
    private var sent: [Int32: Int] = [:]
    private var running = true
    private let finished = DispatchSemaphore(value: 0)

    /// Opens `count` connections from `source` to 127.0.0.1:`port`; each sends `opening` at once,
    /// then one byte of `trickle` every `interval` (repeating it), until stopped or closed by the server.
    init(count: Int, port: Int, source: String = "127.0.0.2", opening: Data, trickle: Data = Data("x".utf8), interval: TimeInterval = 0.5) {
        var opened: [Int32] = []
        for _ in 0..<count {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { continue }
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
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                close(descriptor)
                continue
            }
            if !opening.isEmpty { _ = opening.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } }
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            opened.append(descriptor)
        }
        descriptors = opened
        let trickleBytes = [UInt8](trickle)
        let thread = Thread { [self] in
            var step = 0
            while self.isRunning {
                for descriptor in self.open {
                    var probe: UInt8 = 0
                    // Anything but "nothing to read yet" means the server answered or closed.
                    let read = recv(descriptor, &probe, 1, Int32(MSG_PEEK))
                    if read == 0 || (read < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
                        self.markClosed(descriptor)
                        continue
                    }
                    guard !trickleBytes.isEmpty else { continue }
                    var byte = trickleBytes[step % trickleBytes.count]
                    if send(descriptor, &byte, 1, Int32(MSG_NOSIGNAL)) == 1 { self.count(descriptor) } else if errno != EAGAIN { self.markClosed(descriptor) }
                }
                step += 1
                Thread.sleep(forTimeInterval: interval)
            }
            self.finished.signal()
        }
        thread.start()
    }

    private var isRunning: Bool { lock.withLock { running } }
    private var open: [Int32] { lock.withLock { descriptors.filter { !closedByServer.contains($0) } } }
    private func markClosed(_ descriptor: Int32) { lock.withLock { _ = closedByServer.insert(descriptor) } }
    private func count(_ descriptor: Int32) { lock.withLock { sent[descriptor, default: 0] += 1 } }

    var connected: Int { lock.withLock { descriptors.count } }
    /// Connections the server closed (or answered) so far.
    var closed: Int { lock.withLock { closedByServer.count } }
    /// The most bytes any one connection trickled after its opening.
    var mostTrickled: Int { lock.withLock { sent.values.max() ?? 0 } }

    /// Waits until `condition` holds, checking every 20 ms, for at most `seconds` (generous: a
    /// bound for a test that would otherwise hang, not a measure of speed).
    static func wait(upTo seconds: Double = 60, _ condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    /// Closes every connection once the sending thread has stopped using them.
    func stop() async {
        lock.withLock { running = false }
        let finished = self.finished
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                finished.wait()
                continuation.resume()
            }
        }
        for descriptor in lock.withLock({ descriptors }) { close(descriptor) }
    }
}
