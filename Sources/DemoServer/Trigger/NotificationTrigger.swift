import AppStoreServerAPI
import Foundation

/// What `iapdesk trigger` asks for: one notification of a documented type and subtype about a demo
/// customer, with fields changed by `--set`.
public struct TriggerRequest: Sendable {
    public var kind: NotificationKind
    /// Any ID of a demo customer of `environment`: original transaction, transaction, order, app
    /// transaction ID or app account token. Nil: a customer that fits the type.
    public var customer: String?
    public var environment: AppStoreEnvironment
    /// Another bundle ID than the demo's, to see a handler refuse another app's notification.
    public var bundleId: String?
    public var assignments: [FieldAssignment]
    /// The notification's signedDate (and the moment relative `--set` dates count from); nil: now.
    public var now: Date?

    public init(
        kind: NotificationKind, customer: String? = nil, environment: AppStoreEnvironment = .sandbox, bundleId: String? = nil,
        assignments: [FieldAssignment] = [], now: Date? = nil
    ) {
        self.kind = kind
        self.customer = customer
        self.environment = environment
        self.bundleId = bundleId
        self.assignments = assignments
        self.now = now
    }
}

/// A notification made by `trigger`: signed with the demo's chain, with what went into it.
public struct TriggeredNotification: Sendable {
    public let kind: NotificationKind
    public let environment: AppStoreEnvironment
    /// The payload as signed (its nested objects hold the signed strings).
    public let payload: NotificationPayload
    public let transaction: TransactionPayload?
    public let renewal: RenewalInfoPayload?
    public let appTransaction: AppTransactionPayload?
    public let signedPayload: String
    public let customer: TriggeredCustomer?

    public var notificationUUID: String { payload.notificationUUID ?? "" }
    public var signedDate: Date { payload.signedDate ?? Date() }

    /// What Apple POSTs: `{"signedPayload": "..."}`.
    public var body: Data { Data(JSONValue.object([("signedPayload", .string(signedPayload))]).rendered().utf8) }
}

/// The demo customer a notification concerns, and why that one.
public struct TriggeredCustomer: Sendable {
    public let scenario: String
    public let originalTransactionId: String?
    public let transactionId: String?
    public let productId: String?
    /// How the customer and transaction were chosen, such as "the default for REFUND".
    public let chosen: String
}

extension DemoServer {
    /// Makes one signed notification of `request.kind`, as Apple would send it for the customer,
    /// signed by the demo's chain (what `makeVerifier()` and `listen --demo` trust) and not sent:
    /// it is not added to the demo's notification history.
    public func trigger(_ request: TriggerRequest) throws(TriggerError) -> TriggeredNotification {
        let now = request.now ?? Date(epochMilliseconds: Date().epochMilliseconds)
        let kind = request.kind
        let environment = request.environment
        let need = TriggerShaping.need(kind)
        if request.customer != nil, case .none = need {
            throw TriggerError("\(kind) concerns no customer: leave --customer out.", kind: .usage)
        }
        let requested = request.customer?.trimmingCharacters(in: .whitespaces)
        let read: Result<(TriggerSelection?, NotificationSummary?), TriggerError>
        do {
            read = try store.read(environment) { (data: DemoEnvironmentData) throws(DemoAPIError) in
                Result { () throws(TriggerError) in
                    let selection = try TriggerSelection.select(requested, need: need, kind: kind, in: data)
                    return (selection, kind == NotificationKind(.renewalExtension, .summary) ? TriggerShaping.summary(in: data) : nil)
                }
            }
        } catch {
            throw TriggerError("The demo's data cannot be read: \(error)", kind: .usage)
        }
        let selection: TriggerSelection?
        let summary: NotificationSummary?
        switch read {
        case .success(let found): (selection, summary) = found
        case .failure(let error):
            if error.kind == .notFound, let requested, let other = otherEnvironment(of: requested, environment) {
                throw TriggerError(error.message, hint: "It is a \(other.label) customer: add --environment \(other.rawValue).", kind: .notFound)
            }
            throw error
        }

        var shaped = TriggerShaping(kind: kind, environment: environment, now: now, selection: selection)
        shaped.shape()
        let bundleId = request.bundleId ?? DemoCatalog.bundleId
        let appAppleId = environment == .production ? DemoCatalog.appAppleId : nil
        let assignments = request.assignments

        var payload = NotificationPayload.demo(kind.type, kind.subtype, uuid: UUID().uuidString.lowercased(), signedDate: now)
        var transaction: TransactionPayload?
        var renewal: RenewalInfoPayload?
        var appTransaction: AppTransactionPayload?
        for object in PayloadObject.allCases where object != .payload && object != .data {
            if assignments.contains(where: { $0.object == object }) && !shaped.carries(object) {
                throw TriggerError(
                    "\(kind) carries no \(object.rawValue)\(selection.map { " for \($0.customer.scenario)" } ?? ""): --set \(object.rawValue).… has nothing to change.",
                    hint: "It carries: " + (["payload", "data"].filter { $0 != "data" || shaped.carries(.data) } + PayloadObject.allCases.filter { $0 != .payload && $0 != .data && shaped.carries($0) }.map(\.rawValue)).joined(separator: ", ") + ".",
                    kind: .usage)
            }
        }
        switch kind.type {
        case .renewalExtension where kind.subtype == .summary:
            var made = summary ?? NotificationSummary()
            made.environment = environment
            made.appAppleId = appAppleId
            made.bundleId = bundleId
            payload.summary = try FieldAssignment.applying(assignments, to: .summary, of: made, now: now)
        case .externalPurchaseToken:
            var token = ExternalPurchaseToken()
            let created: Date = kind.subtype == .activeTokenReminder ? now.addingTimeInterval(-30 * 86_400) : now
            token.externalPurchaseId = (environment == .sandbox ? "SANDBOX_" : "") + UUID().uuidString.lowercased()
            token.tokenCreationDate = created.epochMilliseconds
            token.appAppleId = DemoCatalog.appAppleId
            token.bundleId = bundleId
            if kind.subtype == .created || kind.subtype == .activeTokenReminder {
                token.tokenType = "ACQUISITION"
                token.tokenExpirationDate = created.addingTimeInterval(365 * 86_400).epochMilliseconds
            }
            payload.externalPurchaseToken = try FieldAssignment.applying(assignments, to: .externalPurchaseToken, of: token, now: now)
        case .rescindConsent:
            var app = shaped.appTransaction ?? AppTransactionPayload()
            app.bundleId = bundleId
            app.receiptCreationDate = now
            app = try FieldAssignment.applying(assignments, to: .appTransaction, of: app, now: now)
            appTransaction = app
            var appData = NotificationAppData()
            appData.appAppleId = appAppleId
            appData.bundleId = bundleId
            appData.environment = environment
            appData.signedAppTransactionInfo = store.signed(app)
            payload.appData = try FieldAssignment.applying(assignments, to: .appData, of: appData, now: now)
        default:
            var data = NotificationData.demoApp(environment)
            data.bundleId = bundleId
            if kind.type != .test {
                data.bundleVersion = DemoCatalog.bundleVersion
                data.status = shaped.status
                data.consumptionRequestReason = shaped.consumptionRequestReason
            }
            if var made = shaped.transaction {
                made.bundleId = bundleId
                made = try FieldAssignment.applying(assignments, to: .transaction, of: made, now: now)
                transaction = made
                data.signedTransactionInfo = store.signed(made)
            }
            if let made = shaped.renewal {
                let applied = try FieldAssignment.applying(assignments, to: .renewal, of: made, now: now)
                renewal = applied
                data.signedRenewalInfo = store.signed(applied)
            }
            payload.data = try FieldAssignment.applying(assignments, to: .data, of: data, now: now)
        }
        payload = try FieldAssignment.applying(assignments, to: .payload, of: payload, now: now)
        let customer = selection.map { selection in
            TriggeredCustomer(
                scenario: selection.customer.scenario, originalTransactionId: transaction?.originalTransactionId ?? selection.transaction?.originalTransactionId,
                transactionId: transaction?.transactionId, productId: transaction?.productId, chosen: selection.chosen)
        }
        return TriggeredNotification(
            kind: kind, environment: environment, payload: payload, transaction: transaction, renewal: renewal, appTransaction: appTransaction,
            signedPayload: store.signed(payload), customer: customer)
    }

    /// The environment other than `environment` that knows `id` as a customer, if one does.
    private func otherEnvironment(of id: String, _ environment: AppStoreEnvironment) -> AppStoreEnvironment? {
        let other: AppStoreEnvironment = environment == .sandbox ? .production : .sandbox
        let known = try? store.read(other) { (data: DemoEnvironmentData) throws(DemoAPIError) -> Bool in
            TriggerSelection.customerNumber(of: id, in: data) != nil
        }
        return known == true ? other : nil
    }
}
