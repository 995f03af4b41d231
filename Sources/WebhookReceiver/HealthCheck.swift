import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// `GET /healthz`: 200 while notifications can be stored, 503 while the store is down, for a load
/// balancer or a monitor, with the seconds since a notification was last stored. With nothing
/// written for a few seconds, the store is asked before the answer (`GuardedStore.confirmWritable`). The cause of an
/// outage is logged, not shown here: the receiver faces the internet.
enum HealthCheck {
    static let path = "/healthz"

    /// `lastStoredSecondsAgo` is null until a notification is stored.
    static func answer(_ store: GuardedStore, lastStored: Int?) -> Response {
        let accepting = store.accepting
        var object: [String: Any] = ["store": accepting ? "writable" : "down", "lastStoredSecondsAgo": lastStored.map { $0 as Any } ?? NSNull()]
        if !accepting, let outage = store.outage {
            object["downForSeconds"] = (ContinuousClock.now - outage.since).components.seconds
        }
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return Response(
            status: accepting ? .ok : .serviceUnavailable, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}

/// When a notification was last stored or counted again as a repeat.
final class LastStored: Sendable {
    private let instant = Mutex<ContinuousClock.Instant?>(nil)

    func set(_ now: ContinuousClock.Instant) { instant.withLock { $0 = now } }

    /// Whole seconds since then, nil before the first.
    var secondsAgo: Int? {
        instant.withLock { $0 }.map { Int((ContinuousClock.now - $0).components.seconds) }
    }
}
