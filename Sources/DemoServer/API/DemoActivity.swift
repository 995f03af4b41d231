import Foundation
import Synchronization

/// What the server does with a request, as it happens: a test (or a walkthrough) follows the server
/// by these events instead of guessing how long it takes.
public enum DemoActivity: Sendable, Equatable {
    /// A request arrived and its body was read, before any fault holds it.
    case received(method: String, path: String)
    /// Its answer was made (a write applied or refused); it is sent next.
    case answered(method: String, path: String, status: Int)
    /// The server added a notification to its history (and sends it to the webhook, when one is
    /// set): an extension's RENEWAL_EXTENDED, Apple's decision on a refund request.
    case published(notificationType: String, notificationUUID: String)

    /// The request's method; empty for a notification published.
    public var method: String {
        switch self {
        case .received(let method, _), .answered(let method, _, _): return method
        case .published: return ""
        }
    }

    /// The request's path; empty for a notification published.
    public var path: String {
        switch self {
        case .received(_, let path), .answered(_, let path, _): return path
        case .published: return ""
        }
    }
}

/// Hands each activity to every stream open at the time.
final class DemoActivityFeed: Sendable {
    private let listeners = Mutex<(next: Int, open: [Int: AsyncStream<DemoActivity>.Continuation])>((0, [:]))

    func stream() -> AsyncStream<DemoActivity> {
        let (stream, continuation) = AsyncStream<DemoActivity>.makeStream()
        let id = listeners.withLock { listeners -> Int in
            listeners.next += 1
            listeners.open[listeners.next] = continuation
            return listeners.next
        }
        continuation.onTermination = { [weak self] _ in _ = self?.listeners.withLock { $0.open.removeValue(forKey: id) } }
        return stream
    }

    func report(_ activity: DemoActivity) {
        let open = listeners.withLock { Array($0.open.values) }
        for continuation in open { continuation.yield(activity) }
    }

    /// Ends every stream (the server stopped).
    func finish() {
        let open = listeners.withLock { listeners in
            defer { listeners.open = [:] }
            return Array(listeners.open.values)
        }
        for continuation in open { continuation.finish() }
    }
}
