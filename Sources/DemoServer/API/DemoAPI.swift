import AppStoreServerAPI
import Foundation
import Logging

/// The App Store Server API as the demo serves it: authentication, faults, then the route.
struct DemoAPI: Sendable {
    let store: DemoStore
    let authenticator: RequestAuthenticator
    let faults: FaultInjector
    let activity = DemoActivityFeed()
    let seeds: @Sendable (AppStoreEnvironment) -> DemoSeedIDs
    let logger: Logger
    private let transactions: TransactionRoutes
    private let subscriptions: SubscriptionRoutes
    private let notifications: NotificationRoutes
    private let retention: RetentionRoutes
    private let advancedCommerce: AdvancedCommerceRoutes

    init(store: DemoStore, authenticator: RequestAuthenticator, faults: FaultInjector, webhookTimeout: TimeInterval,
         logger: Logger, seeds: @escaping @Sendable (AppStoreEnvironment) -> DemoSeedIDs,
         retention: DemoRetentionSettings = DemoRetentionSettings()) {
        self.store = store
        self.authenticator = authenticator
        self.faults = faults
        self.logger = logger
        self.seeds = seeds
        let notifications = NotificationRoutes(store: store, sender: WebhookSender(timeout: webhookTimeout), activity: activity)
        self.notifications = notifications
        self.transactions = TransactionRoutes(store: store, decisions: RefundDecisionRoutes(store: store, notifications: notifications))
        self.subscriptions = SubscriptionRoutes(store: store, notifications: notifications)
        self.retention = RetentionRoutes(store: store, settings: retention)
        self.advancedCommerce = AdvancedCommerceRoutes(store: store, notifications: notifications)
    }

    /// Work an earlier run left under way (a mass extension it did not see complete, a refund
    /// request answered and not decided on).
    func resumePendingWork() {
        subscriptions.resumeMassExtensions()
        transactions.decisions.resumePending()
    }

    /// Paths under `/sandbox` are served from the Sandbox data; all others from Production.
    func handle(_ incoming: DemoRequest) async -> DemoResponse {
        var request = incoming
        var environment = AppStoreEnvironment.production
        if request.segments.first == "sandbox" {
            environment = .sandbox
            request.segments.removeFirst()
        }
        if request.method == "GET", request.segments == ["demo", "seed-ids.json"] {
            return .json(seeds(environment))
        }
        if request.method == "POST", request.segments == ["demo", "webhook"] {
            // The demo's own notification receiver: accepts what Apple would send, like a healthy
            // server, and keeps it where it was told to (200 only once kept).
            guard let keep = store.ownReceiver.withLock({ $0 }) else { return DemoResponse(status: 200) }
            return DemoResponse(status: await keep(request.body) ? 200 : 503)
        }
        if request.method == "POST", request.segments == ["demo", "realtime"] {
            return retention.ownRealtimeAnswer(environment)
        }
        guard let route = Route(request) else {
            return DemoResponse(status: 404)
        }
        if faults.faults.onlyWrites, !route.isWrite { return await answer(route, request, environment, fault: nil) }
        let number = faults.arrive()
        guard await faults.delay(number) else {
            // Stopping: the delay was cut short, and so is the answer.
            return DemoResponse(status: 503)
        }
        return faults.after(number, await answer(route, request, environment, fault: number))
    }

    /// The answer to an authenticated request, or the fault injected before routing for request `fault`.
    private func answer(_ route: Route, _ request: DemoRequest, _ environment: AppStoreEnvironment, fault: Int?) async -> DemoResponse {
        if let refusal = await authenticator.refusal(authorization: request.headers["authorization"], now: store.clock()) {
            logger.debug("401 \(request.method) /\(request.segments.joined(separator: "/")): \(refusal)")
            return DemoResponse(status: 401)
        }
        if let fault, let injected = faults.before(fault, endpoint: route.limitName, environment: environment, now: store.clock()) {
            return injected
        }
        do {
            return try dispatch(route, request, environment)
        } catch {
            return error.response
        }
    }

    private func dispatch(_ route: Route, _ request: DemoRequest, _ environment: AppStoreEnvironment) throws(DemoAPIError) -> DemoResponse {
        switch route {
        case .transactionInfo(let id): return try transactions.transactionInfo(id, environment)
        case .history(let id, let v1): return try transactions.history(id, request, environment, v1: v1)
        case .statuses(let id): return try subscriptions.statuses(id, request, environment)
        case .refunds(let id): return try transactions.refundHistory(id, request, environment)
        case .lookup(let orderId): return try subscriptions.lookUpOrder(orderId, environment)
        case .extend(let id): return try subscriptions.extend(id, request, environment)
        case .massExtend: return try subscriptions.massExtend(request, environment)
        case .massExtendStatus(let productId, let requestIdentifier):
            return try subscriptions.massExtendStatus(productId, requestIdentifier, environment)
        case .notificationHistory: return try notifications.history(request, environment)
        case .testNotification: return try notifications.requestTest(environment)
        case .testNotificationStatus(let token): return try notifications.testStatus(token, environment)
        case .consumption(let id, let v1):
            return v1 ? try transactions.consumptionV1(id, request, environment) : try transactions.consumption(id, request, environment)
        case .appAccountToken(let id): return try transactions.setAppAccountToken(id, request, environment)
        case .appTransaction(let id): return try transactions.appTransactionInfo(id, environment)
        case .finish(let id): return try transactions.finish(id, environment)
        case .retention(let call): return try retention.dispatch(call, request, environment)
        case .advancedCommerce(let action, let id): return try advancedCommerce.handle(action, id, request, environment)
        }
    }
}

/// The App Store Server API paths the demo serves.
enum Route {
    case transactionInfo(String), history(String, v1: Bool), statuses(String), refunds(String), lookup(String)
    case extend(String), massExtend, massExtendStatus(String, String), notificationHistory, testNotification
    case testNotificationStatus(String), consumption(String, v1: Bool), appAccountToken(String), appTransaction(String)
    case finish(String)
    case retention(RetentionCall)
    case advancedCommerce(DemoAdvancedCommerceAction, String)

    init?(_ request: DemoRequest) {
        let method = request.method
        let path = request.segments
        // Patterns: "*" captures one segment. More specific patterns come first.
        func match(_ verb: String, _ pattern: String) -> [String]? {
            let parts = pattern.split(separator: "/").map(String.init)
            guard verb == method, parts.count == path.count else { return nil }
            var captured: [String] = []
            for (part, segment) in zip(parts, path) {
                if part == "*" {
                    captured.append(segment)
                } else if part != segment {
                    return nil
                }
            }
            return captured
        }
        if let c = match("GET", "inApps/v1/transactions/appTransactions/*") { self = .appTransaction(c[0]) }
        else if let c = match("GET", "inApps/v1/transactions/*") { self = .transactionInfo(c[0]) }
        else if let c = match("GET", "inApps/v2/history/*") { self = .history(c[0], v1: false) }
        else if let c = match("GET", "inApps/v1/history/*") { self = .history(c[0], v1: true) }
        else if let c = match("GET", "inApps/v1/subscriptions/extend/mass/*/*") { self = .massExtendStatus(c[0], c[1]) }
        else if let c = match("GET", "inApps/v1/subscriptions/*") { self = .statuses(c[0]) }
        else if let c = match("GET", "inApps/v2/refund/lookup/*") { self = .refunds(c[0]) }
        else if let c = match("GET", "inApps/v1/lookup/*") { self = .lookup(c[0]) }
        else if match("POST", "inApps/v1/subscriptions/extend/mass") != nil { self = .massExtend }
        else if let c = match("PUT", "inApps/v1/subscriptions/extend/*") { self = .extend(c[0]) }
        else if match("POST", "inApps/v1/notifications/history") != nil { self = .notificationHistory }
        else if match("POST", "inApps/v1/notifications/test") != nil { self = .testNotification }
        else if let c = match("GET", "inApps/v1/notifications/test/*") { self = .testNotificationStatus(c[0]) }
        else if let c = match("PUT", "inApps/v2/transactions/consumption/*") { self = .consumption(c[0], v1: false) }
        else if let c = match("PUT", "inApps/v1/transactions/consumption/*") { self = .consumption(c[0], v1: true) }
        else if let c = match("PUT", "inApps/v1/transactions/*/appAccountToken") { self = .appAccountToken(c[0]) }
        else if let c = match("POST", "inApps/v1/transactions/*/finish") { self = .finish(c[0]) }
        else if let call = RetentionCall(method: method, path: path) { self = .retention(call) }
        else if let c = match("POST", "advancedCommerce/v1/*/*/*"), let action = DemoAdvancedCommerceAction(scope: c[0], c[1]) { self = .advancedCommerce(action, c[2]) }
        else { return nil }
    }

    /// Whether the request changes something at Apple (Get Notification History is a POST that only reads).
    var isWrite: Bool {
        switch self {
        case .extend, .massExtend, .testNotification, .consumption, .appAccountToken, .finish, .advancedCommerce: return true
        case .retention(let call): return call.isWrite
        default: return false
        }
    }

    /// The name rate limits are kept under.
    var limitName: String {
        switch self {
        case .lookup: return "lookup"
        case .refunds: return "refunds"
        case .extend: return "extend"
        case .appAccountToken: return "appAccountToken"
        case .massExtend: return "massExtend"
        case .massExtendStatus: return "massExtendStatus"
        case .testNotification: return "testNotification"
        case .testNotificationStatus: return "testNotificationStatus"
        case .retention(let call): return call.limitName
        case .advancedCommerce: return "advancedCommerce"
        default: return "read"
        }
    }
}
