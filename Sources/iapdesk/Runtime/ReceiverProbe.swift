import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Whether something accepts connections at a URL's host and port: a demo receiver that stopped
/// leaves its URL behind, and a live one must not be taken over.
enum ReceiverProbe {
    static func isListening(_ url: URL, within milliseconds: Int32 = 300) -> Bool {
        guard let host = url.host, let port = url.port ?? (url.scheme == "https" ? 443 : 80) as Int? else { return false }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let first = found else { return false }
        defer { freeaddrinfo(found) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            defer { entry = address.pointee.ai_next }
            let socket = Glibc.socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
            guard socket >= 0 else { continue }
            defer { close(socket) }
            _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
            if connect(socket, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 { return true }
            guard errno == EINPROGRESS else { continue }
            var poller = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
            guard poll(&poller, 1, milliseconds) == 1 else { continue }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(socket, SOL_SOCKET, SO_ERROR, &error, &length)
            if error == 0 { return true }
        }
        return false
    }
}
