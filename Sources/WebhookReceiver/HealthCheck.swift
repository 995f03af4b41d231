import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `GET /healthz`: 200 while notifications can be stored, 503 while the store is down, for a load
/// balancer or a monitor. The cause is logged, not shown here: the receiver faces the internet.
enum HealthCheck {
    static let path = "/healthz"

    static func answer(_ store: GuardedStore) -> Response {
        let accepting = store.accepting
        var object: [String: Any] = ["store": accepting ? "writable" : "down"]
        if !accepting, let outage = store.outage {
            object["downForSeconds"] = (ContinuousClock.now - outage.since).components.seconds
        }
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return Response(
            status: accepting ? .ok : .serviceUnavailable, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}
