import AppStoreServerAPI
import DeskStore
import Foundation

/// A consumption policy: how the app answers Apple's refund requests (CONSUMPTION_REQUEST) on its
/// own. Data, read from a TOML file (`RefundPolicy.parse`), plus the agents' per-customer overrides
/// kept in the store; `decide` says what it does for one request, and is pure.
public struct RefundPolicy: Sendable, Equatable {
    /// Where the customer's consent to share consumption information comes from. Apple accepts an
    /// answer only with consent; a policy without a source never sends.
    public enum Consent: String, Sendable, Equatable, CaseIterable {
        /// The app's terms, which the customer accepted, give it.
        case appTerms = "app-terms"

        public var words: String {
            switch self {
            case .appTerms: return "the app's terms give it"
            }
        }
    }

    /// The outcome the app states it would prefer.
    public enum Preference: String, Sendable, Equatable, CaseIterable {
        case decline
        case grantFull = "grant-full"
        case grantProrated = "grant-prorated"
        /// Said nothing: the field is left out.
        case none

        public var apple: RefundPreference? {
            switch self {
            case .decline: return .decline
            case .grantFull: return .grantFull
            case .grantProrated: return .grantProrated
            case .none: return nil
            }
        }

        public var words: String {
            switch self {
            case .decline: return "prefer to decline"
            case .grantFull: return "prefer a full refund"
            case .grantProrated: return "prefer a prorated refund"
            case .none: return "no preference stated"
            }
        }
    }

    /// The delivery status stated.
    public enum Delivery: Sendable, Equatable {
        /// Delivered, unless Apple's transaction says it was refunded or revoked.
        case fromTransaction
        case fixed(DeliveryStatus)

        public var words: String {
            switch self {
            case .fromTransaction: return "delivered, unless the transaction was refunded or revoked"
            case .fixed(let status): return status.label.lowercased()
            }
        }
    }

    /// The share of the purchase consumed that is stated.
    public enum Share: Sendable, Equatable {
        /// Left out.
        case omitted
        /// 0 to 100; never sent for an auto-renewable subscription (Apple refuses it) and sent as 0
        /// when the content was not delivered (Apple requires it).
        case percent(Double)

        public var words: String {
            switch self {
            case .omitted: return "not stated"
            case .percent(let value): return "\(DisplayFormat.percentage(Int32((value * 1000).rounded()))) (not for subscriptions; 0 when not delivered)"
            }
        }
    }

    /// What an answer states. Each is optional in a rule (unset: the one before applies).
    public struct Answer: Sendable, Equatable {
        public var refundPreference: Preference?
        public var delivery: Delivery?
        public var share: Share?
        public var sampleContent: Bool?
        /// false: requests this applies to are not answered.
        public var answers: Bool?

        public init(refundPreference: Preference? = nil, delivery: Delivery? = nil, share: Share? = nil, sampleContent: Bool? = nil, answers: Bool? = nil) {
            self.refundPreference = refundPreference
            self.delivery = delivery
            self.share = share
            self.sampleContent = sampleContent
            self.answers = answers
        }

        /// `other`'s settings over these.
        func overlaid(by other: Answer) -> Answer {
            Answer(
                refundPreference: other.refundPreference ?? refundPreference, delivery: other.delivery ?? delivery, share: other.share ?? share,
                sampleContent: other.sampleContent ?? sampleContent, answers: other.answers ?? answers)
        }
    }

    /// A rule by product and by Apple's reason; the first that matches applies.
    public struct Rule: Sendable, Equatable {
        /// Product IDs or patterns (`*` any characters); empty: any product.
        public var products: [String]
        /// Apple's reasons; empty: any reason.
        public var reasons: [ConsumptionRequestReason]
        public var answer: Answer
        /// Where it is written, for what is shown and logged.
        public var line: Int?

        public init(products: [String] = [], reasons: [ConsumptionRequestReason] = [], answer: Answer, line: Int? = nil) {
            self.products = products
            self.reasons = reasons
            self.answer = answer
            self.line = line
        }

        public func matches(productId: String?, reason: ConsumptionRequestReason?) -> Bool {
            let product = products.isEmpty || products.contains { Self.glob($0, matches: productId ?? "") }
            let why = reasons.isEmpty || reason.map(reasons.contains) == true
            return product && why
        }

        /// `*` matches any run of characters, `?` one; everything else itself.
        static func glob(_ pattern: String, matches text: String) -> Bool {
            let pattern = Array(pattern), text = Array(text)
            var (p, t) = (0, 0)
            var (star, mark) = (-1, 0)
            while t < text.count {
                if p < pattern.count, pattern[p] == "?" || pattern[p] == text[t] {
                    p += 1
                    t += 1
                } else if p < pattern.count, pattern[p] == "*" {
                    star = p
                    mark = t
                    p += 1
                } else if star >= 0 {
                    p = star + 1
                    mark += 1
                    t = mark
                } else {
                    return false
                }
            }
            while p < pattern.count, pattern[p] == "*" { p += 1 }
            return p == pattern.count
        }

        public var words: String {
            var parts: [String] = []
            parts.append(products.isEmpty ? "any product" : "product " + products.joined(separator: " or "))
            parts.append(reasons.isEmpty ? "any reason" : "reason " + reasons.map { $0.label.lowercased() }.joined(separator: " or "))
            return parts.joined(separator: ", ")
        }
    }

    /// A customer the policy file names, by original transaction ID or app account token.
    public struct Customer: Sendable, Equatable {
        public var kind: RefundOverride.Kind
        public var account: String
        public var answer: Answer
        public var note: String?
        public var line: Int?

        public init(kind: RefundOverride.Kind, account: String, answer: Answer, note: String? = nil, line: Int? = nil) {
            self.kind = kind
            self.account = kind == .appAccountToken ? account.lowercased() : account
            self.answer = answer
            self.note = note
            self.line = line
        }
    }

    /// The file's name, which names the policy as the agent of its answers ("policy:refunds.toml").
    public var name: String
    public var consent: Consent?
    /// What every answer states unless a rule or a customer says otherwise.
    public var defaults: Answer
    public var rules: [Rule]
    public var customers: [Customer]
    /// Says what it would send and sends nothing.
    public var dryRun: Bool

    public init(name: String, consent: Consent?, defaults: Answer, rules: [Rule] = [], customers: [Customer] = [], dryRun: Bool = false) {
        self.name = name
        self.consent = consent
        self.defaults = defaults
        self.rules = rules
        self.customers = customers
        self.dryRun = dryRun
    }

    /// The agent the ledger records for the policy's answers.
    public var agent: String { "policy:" + name }

    /// What every answer states when the file says nothing: decline is not assumed; a stated
    /// preference must be chosen (the parser requires `refund_preference`).
    static let builtIn = Answer(refundPreference: nil, delivery: .fromTransaction, share: .omitted, sampleContent: false, answers: true)
}

/// What a refund request's policy answer is built from: the request, and Apple's transaction as
/// the notification carried it (nil when unknown: product type and customer token are then not known).
public struct RefundPolicyCase: Sendable, Equatable {
    public var request: RefundRequest
    public var transaction: TransactionPayload?

    /// `transaction` defaults to the one the request carried.
    public init(request: RefundRequest, transaction: TransactionPayload? = nil) {
        self.request = request
        self.transaction = transaction ?? request.transaction
    }

    var appAccountToken: String? { transaction?.appAccountToken?.lowercased() }
    var originalTransactionId: String? { request.originalTransactionId ?? transaction?.originalTransactionId }
}

/// What the policy does for one refund request, and why, in words.
public struct RefundPolicyDecision: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        /// Send this answer.
        case send(ConsumptionRequest)
        /// Dry run: this answer would be sent.
        case wouldSend(ConsumptionRequest)
        /// Not answered, and why.
        case skip(String)
    }

    public var action: Action
    /// What decided each part, such as "rule 2 (line 14): product com.example.coins.*".
    public var because: [String]

    /// One line for the receiver's log and the pane.
    public var summary: String {
        switch action {
        case .send(let request): return "answer: " + Self.describe(request)
        case .wouldSend(let request): return "dry run, would answer: " + Self.describe(request)
        case .skip(let why): return "not answered: " + why
        }
    }

    /// An answer in words: "delivered, 40 % consumed, no sample, prefer to decline".
    public static func describe(_ request: ConsumptionRequest) -> String {
        var parts = [request.deliveryStatus.map { $0.label.lowercased() } ?? "no delivery status"]
        if let share = request.consumptionPercentage { parts.append("\(DisplayFormat.percentage(share)) consumed") }
        parts.append(request.sampleContentProvided == true ? "a sample was provided" : "no sample")
        parts.append(request.refundPreference.map { RefundPolicy.Preference(apple: $0)?.words ?? $0.rawValue } ?? "no preference stated")
        return parts.joined(separator: ", ")
    }
}

extension RefundPolicy.Preference {
    init?(apple: RefundPreference) {
        switch apple {
        case .decline: self = .decline
        case .grantFull: self = .grantFull
        case .grantProrated: self = .grantProrated
        case .unknown: return nil
        }
    }
}

extension RefundPolicy {
    /// What the policy does for `policyCase` at `now`, with the agents' overrides in force: pure,
    /// so the console shows it before the receiver acts and a test can call it.
    public func decide(_ policyCase: RefundPolicyCase, overrides: [RefundOverride], now: Date) -> RefundPolicyDecision {
        let request = policyCase.request
        var because: [String] = []
        func skip(_ why: String) -> RefundPolicyDecision { RefundPolicyDecision(action: .skip(why), because: because) }
        switch request.state(now: now) {
        case .pending: break
        case .answered: return skip("answered already (\(request.answer.map { "by \($0.agent ?? "someone") \(DisplayFormat.date($0.time))" } ?? "in the ledger"))")
        case .expired: return skip("past Apple's 12 hours (they ended \(DisplayFormat.date(request.deadline))): Apple no longer weighs an answer")
        case .refunded, .declined: return skip("Apple decided already (\(request.state(now: now).label))")
        }
        guard let consent else {
            return skip("the policy names no source of the customer's consent (consent = \"app-terms\"): it never sends without one")
        }
        guard request.transactionId != nil else { return skip("the request names no transaction") }
        because.append("consent: \(consent.words)")
        var answer = RefundPolicy.builtIn.overlaid(by: defaults)
        because.append("default: \(defaults.refundPreference?.words ?? "no preference")")
        if let index = rules.firstIndex(where: { $0.matches(productId: request.productId ?? policyCase.transaction?.productId, reason: request.reason) }) {
            let rule = rules[index]
            answer = answer.overlaid(by: rule.answer)
            because.append("rule \(index + 1)\(rule.line.map { " (line \($0))" } ?? ""): \(rule.words)")
        }
        let token = policyCase.appAccountToken, original = policyCase.originalTransactionId
        func names(_ kind: RefundOverride.Kind, _ account: String) -> Bool {
            switch kind {
            case .originalTransactionId: return account == original
            case .appAccountToken: return account == token
            }
        }
        if let customer = customers.first(where: { names($0.kind, $0.account) }) {
            answer = answer.overlaid(by: customer.answer)
            because.append("customer \(customer.account) in the policy\(customer.line.map { " (line \($0))" } ?? "")\(customer.note.map { ": \($0)" } ?? "")")
        }
        // An agent's override is the most specific: the latest for either ID wins.
        if let override = overrides.filter({ names($0.kind, $0.account) }).max(by: { $0.time < $1.time }),
           let preference = override.refundPreference.flatMap(Preference.init(rawValue:))
        {
            answer.refundPreference = preference
            because.append("override by \(override.agent) \(DisplayFormat.date(override.time))\(override.note.map { ": \($0)" } ?? "")")
        }
        guard answer.answers != false else { return skip("the policy says not to answer these (\(because.last ?? "a rule"))") }
        let revoked = policyCase.transaction?.revocationDate != nil
        let status: DeliveryStatus
        switch answer.delivery ?? .fromTransaction {
        case .fromTransaction: status = revoked ? .undeliveredOther : .delivered
        case .fixed(let fixed): status = fixed
        }
        var share: Int32?
        if case .percent(let percent)? = answer.share {
            if policyCase.transaction?.type == .autoRenewableSubscription {
                because.append("consumption share left out: Apple takes none for an auto-renewable subscription")
            } else {
                share = status == .delivered ? Int32((percent * 1000).rounded()) : 0
            }
        }
        let body = ConsumptionAnswer(
            deliveryStatus: status, consumptionPercentage: share, sampleContentProvided: answer.sampleContent ?? false,
            refundPreference: (answer.refundPreference ?? Preference.none).apple, customerConsented: true)
        // What Apple would refuse is not sent: the rules the console's form and `consumption` apply.
        let refusals = ConsumptionRules.bodyRefusals(body, transaction: policyCase.transaction)
        guard refusals.isEmpty else { return skip("Apple would refuse it: " + refusals.map(\.description).joined(separator: "; ")) }
        return RefundPolicyDecision(action: dryRun ? .wouldSend(body.body) : .send(body.body), because: because)
    }
}

extension RefundPolicy {
    /// What the policy says, in words, a line each (`iapdesk refund-policy check`).
    public var words: [String] {
        var lines: [String] = []
        if let consent {
            lines.append("Customer consent: \(consent.words); each answer records it in the audit ledger.")
        } else {
            lines.append("Customer consent: no source named (consent = \"app-terms\"): this policy never sends an answer.")
        }
        lines.append(
            dryRun
                ? "Dry run: each refund request is logged with what would be sent; nothing is sent."
                : "Each refund request is answered on arrival, once, through the audit ledger as \(agent), retried until Apple's 12 hours end.")
        lines.append("Every answer: \(Self.words(Self.builtIn.overlaid(by: defaults))).")
        for (index, rule) in rules.enumerated() {
            lines.append("Rule \(index + 1)\(rule.line.map { " (line \($0))" } ?? ""), \(rule.words): \(Self.words(rule.answer)).")
        }
        // The first rule that matches applies: one that matches every request hides the rest.
        if let first = rules.firstIndex(where: { $0.products.isEmpty && $0.reasons.isEmpty }), first < rules.count - 1 {
            lines.append(
                "⚠ Rule \(first + 1) matches every request, so rules \(first + 2) to \(rules.count) never apply: put it last, or give it a product or reason.")
        }
        for customer in customers {
            let who = customer.kind == .appAccountToken ? "app account token" : "original transaction"
            lines.append("Customer \(who) \(customer.account)\(customer.line.map { " (line \($0))" } ?? ""): \(Self.words(customer.answer))\(customer.note.map { " (\($0))" } ?? "").")
        }
        if !rules.isEmpty { lines.append("The first rule that matches applies; a customer named here, then an agent's override (iapdesk refund-policy set), come over it.") }
        return lines
    }

    /// The settings an answer sets, in words.
    static func words(_ answer: Answer) -> String {
        if answer.answers == false { return "not answered" }
        var parts: [String] = []
        if let preference = answer.refundPreference { parts.append(preference.words) }
        if let delivery = answer.delivery { parts.append("delivery: \(delivery.words)") }
        if let share = answer.share { parts.append("consumption share: \(share.words)") }
        if let sample = answer.sampleContent { parts.append(sample ? "a sample was provided" : "no sample provided") }
        return parts.isEmpty ? "as above" : parts.joined(separator: "; ")
    }
}
