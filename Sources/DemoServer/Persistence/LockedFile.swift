import Foundation
import Synchronization

/// An open file held under flock(2): other processes' locks on it wait (or fail, when asked not
/// to wait) until it is closed. Locks are advisory: every demo process takes them the same way.
final class LockedFile: Sendable {
    private let descriptor: Mutex<Int32?>

    private init(_ descriptor: Int32) {
        self.descriptor = Mutex(descriptor)
    }

    /// Nil when `wait` is false and another process holds a conflicting lock.
    static func open(_ path: String, exclusive: Bool, wait: Bool = true, flags: Int32 = O_RDWR | O_CREAT) throws(DemoStateError) -> LockedFile? {
        let fd = Glibc.open(path, flags | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .cannotWrite(path, String(cString: strerror(errno))) }
        var operation = exclusive ? LOCK_EX : LOCK_SH
        if !wait { operation |= LOCK_NB }
        while flock(fd, operation) != 0 {
            if errno == EINTR { continue }
            let reason = errno
            Glibc.close(fd)
            if reason == EWOULDBLOCK { return nil }
            throw .cannotWrite(path, String(cString: strerror(reason)))
        }
        return LockedFile(fd)
    }

    var fd: Int32 { descriptor.withLock { $0 ?? -1 } }

    /// Closing ends the lock; a second close does nothing.
    func close() {
        descriptor.withLock { fd in
            if let open = fd { Glibc.close(open) }
            fd = nil
        }
    }

    deinit { close() }
}

/// Why the demo's kept state cannot be used.
public enum DemoStateError: Error, Sendable, CustomStringConvertible {
    case cannotWrite(String, String)
    case unreadable(String, String)
    case inUse(String)

    public var description: String {
        switch self {
        case .cannotWrite(let path, let reason): return "The demo's state cannot be written at \(path): \(reason)."
        case .unreadable(let path, let reason): return "The demo's state at \(path) cannot be read (\(reason)); iapdesk demo --reset starts it afresh."
        case .inUse(let path): return "A demo is running on the state at \(path); stop it (iapdesk demo, or a --demo command) and reset again."
        }
    }
}
