import Foundation

/// An exclusive lock on a file, between the processes of one machine (the console and a command
/// beside it), waited for without holding a thread.
public enum FileLock {
    public static func withLock<T: Sendable>(_ path: String, _ body: @Sendable () async throws -> T) async throws -> T {
        let fd = open(path, O_RDWR | O_CREAT, 0o600)
        guard fd >= 0 else { throw LockError("cannot open the lock file \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else { throw LockError("cannot lock \(path): \(String(cString: strerror(errno)))") }
            try await Task.sleep(for: .milliseconds(50))
        }
        defer { flock(fd, LOCK_UN) }
        return try await body()
    }

    public struct LockError: Error, CustomStringConvertible, Sendable {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
