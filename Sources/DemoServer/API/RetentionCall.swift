import AppStoreServerAPI
import Foundation

/// The Retention Messaging paths the demo serves (all under `inApps/v1/messaging`).
enum RetentionCall: Sendable {
    case uploadImage(String), deleteImage(String), imageList
    case uploadMessage(String), deleteMessage(String), messageList
    case configureDefault(String, String), getDefault(String, String), deleteDefault(String, String)
    case configureRealtimeURL, getRealtimeURL, deleteRealtimeURL
    case startPerformanceTest, performanceTestResult(String)

    init?(method: String, path: [String]) {
        guard path.count >= 3, path[0] == "inApps", path[1] == "v1", path[2] == "messaging" else { return nil }
        let rest = Array(path.dropFirst(3))
        switch (method, rest.count, rest.first ?? "") {
        case ("GET", 2, "image") where rest[1] == "list": self = .imageList
        case ("PUT", 2, "image"): self = .uploadImage(rest[1])
        case ("DELETE", 2, "image"): self = .deleteImage(rest[1])
        case ("GET", 2, "message") where rest[1] == "list": self = .messageList
        case ("PUT", 2, "message"): self = .uploadMessage(rest[1])
        case ("DELETE", 2, "message"): self = .deleteMessage(rest[1])
        case ("PUT", 3, "default"): self = .configureDefault(rest[1], rest[2])
        case ("GET", 3, "default"): self = .getDefault(rest[1], rest[2])
        case ("DELETE", 3, "default"): self = .deleteDefault(rest[1], rest[2])
        case ("PUT", 2, "realtime") where rest[1] == "url": self = .configureRealtimeURL
        case ("GET", 2, "realtime") where rest[1] == "url": self = .getRealtimeURL
        case ("DELETE", 2, "realtime") where rest[1] == "url": self = .deleteRealtimeURL
        case ("POST", 1, "performanceTest"): self = .startPerformanceTest
        case ("GET", 3, "performanceTest") where rest[1] == "result": self = .performanceTestResult(rest[2])
        default: return nil
        }
    }

    var isWrite: Bool {
        switch self {
        case .imageList, .messageList, .getDefault, .getRealtimeURL, .performanceTestResult: return false
        default: return true
        }
    }

    /// Apple allows 10 per second for Configure Default Message and 1 for every other RM endpoint.
    var limitName: String {
        if case .configureDefault = self { return "retentionDefaultConfigure" }
        return "retention"
    }
}

extension RetentionRoutes {
    func dispatch(_ call: RetentionCall, _ request: DemoRequest, _ environment: AppStoreEnvironment) throws(DemoAPIError) -> DemoResponse {
        switch call {
        case .uploadImage(let id): return try uploadImage(id, request, environment)
        case .deleteImage(let id): return try deleteImage(id, environment)
        case .imageList: return try imageList(environment)
        case .uploadMessage(let id): return try uploadMessage(id, request, environment)
        case .deleteMessage(let id): return try deleteMessage(id, environment)
        case .messageList: return try messageList(environment)
        case .configureDefault(let product, let locale): return try configureDefault(product, locale, request, environment)
        case .getDefault(let product, let locale): return try getDefault(product, locale, environment)
        case .deleteDefault(let product, let locale): return try deleteDefault(product, locale, environment)
        case .configureRealtimeURL: return try configureRealtimeURL(request, environment)
        case .getRealtimeURL: return try getRealtimeURL(environment)
        case .deleteRealtimeURL: return try deleteRealtimeURL(environment)
        case .startPerformanceTest: return try startPerformanceTest(request, environment)
        case .performanceTestResult(let id): return try performanceTestResult(id, environment)
        }
    }

    /// The demo's own Get Retention Message endpoint (`/demo/realtime`): answers every real-time
    /// request at once with the newest approved message, so a performance test against it passes.
    func ownRealtimeAnswer(_ environment: AppStoreEnvironment) -> DemoResponse {
        let now = store.clock()
        let approved = (try? store.read(environment) { data throws(DemoAPIError) in
            data.retention.messageOrder.last { id in
                data.retention.messages[id].map { DemoRetention.state(rejected: $0.rejected, reviewedAt: $0.reviewedAt, now: now) == .approved } ?? false
            }
        }) ?? nil
        return .json(RealtimeResponseBody(message: approved.map { RealtimeMessage(messageIdentifier: $0) }))
    }
}
