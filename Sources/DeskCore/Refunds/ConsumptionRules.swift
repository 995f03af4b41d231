import AppStoreServerAPI
import Foundation

/// An answer to Apple's consumption request (Send Consumption Information v2) as an agent or a
/// policy means it, before the rules below have checked it.
public struct ConsumptionAnswer: Sendable, Equatable {
    /// Whether the purchase reached the customer and works.
    public var deliveryStatus: DeliveryStatus
    /// The share used, in thousandths of a percent as on the wire (0...100000; 50000 is 50 %);
    /// nil leaves it out (required for auto-renewable subscriptions).
    public var consumptionPercentage: Int32?
    /// Whether the app offered a free sample or trial of the content first.
    public var sampleContentProvided: Bool
    /// The outcome the developer would prefer; nil states none.
    public var refundPreference: RefundPreference?
    /// The customer agreed to share this information with Apple: Apple takes nothing without it.
    public var customerConsented: Bool

    public init(
        deliveryStatus: DeliveryStatus, consumptionPercentage: Int32? = nil, sampleContentProvided: Bool,
        refundPreference: RefundPreference? = nil, customerConsented: Bool
    ) {
        self.deliveryStatus = deliveryStatus
        self.consumptionPercentage = consumptionPercentage
        self.sampleContentProvided = sampleContentProvided
        self.refundPreference = refundPreference
        self.customerConsented = customerConsented
    }

    /// The body that goes to Apple, field for field.
    public var body: ConsumptionRequest {
        ConsumptionRequest(
            customerConsented: customerConsented, consumptionPercentage: consumptionPercentage, deliveryStatus: deliveryStatus,
            refundPreference: refundPreference, sampleContentProvided: sampleContentProvided)
    }
}

/// Why an answer is not sent: what Apple would answer to it (its error and code, when Apple
/// publishes one), said before anything leaves.
public struct ConsumptionRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Rule: String, Sendable, Equatable, CaseIterable {
        case noConsent, unknownDeliveryStatus, unknownRefundPreference, percentageOutOfRange, percentageOnSubscription
        case percentageWhenUndelivered, familyShared, advancedCommerce, notRequested, requestsUnknown, pastDeadline, alreadyAnswered
        case answerUnresolved
    }

    public var rule: Rule
    /// In the agent's words: what is wrong and what to do.
    public var reason: String
    /// Apple's name for the error it would answer ("InvalidCustomerConsentedError"), or nil where
    /// Apple answers none (it disregards the answer) or the rule is the desk's own.
    public var appleError: String?
    /// Apple's error code, where Apple publishes one (4000035).
    public var code: Int?

    public init(_ rule: Rule, _ reason: String, appleError: String? = nil, code: Int? = nil) {
        self.rule = rule
        self.reason = reason
        self.appleError = appleError
        self.code = code
    }

    /// "InvalidCustomerConsentedError 4000035", "ConsumptionPercentageOutOfRangeError (Apple
    /// publishes no code)", or nil for the desk's own rules.
    public var appleAnswer: String? {
        guard let appleError else { return nil }
        return code.map { "\(appleError) \($0)" } ?? "\(appleError) (Apple publishes no code)"
    }

    public var description: String { appleAnswer.map { "\(reason) (Apple: \($0))" } ?? reason }
}

/// Apple's rules for Send Consumption Information v2, checked before the request is sent, the
/// same for the console's form, `iapdesk consumption` and a policy: an answer Apple would refuse
/// or disregard is refused here, with Apple's reason and code, and nothing reaches Apple.
public enum ConsumptionRules {
    /// What to do with an answer.
    public enum Verdict: Sendable, Equatable {
        /// Send this body to `Endpoints.sendConsumptionInformation(transactionId:)`; it answers `request`.
        case send(ConsumptionRequest, answering: RefundRequest)
        /// Every rule it breaks, the first the one to say first.
        case refused([ConsumptionRefusal])
    }

    /// Checks `answer` for `transactionId`.
    ///
    /// - `transaction`: what Apple says of the transaction (from the CONSUMPTION_REQUEST itself or a
    ///   lookup); nil when unknown, which leaves out the rules that need it unless the request carries it.
    /// - `requests`: the refund requests known for the environment (store and Apple's history);
    ///   `requestsComplete` false when a source could not be read, so "not asked" cannot be known.
    public static func check(
        _ answer: ConsumptionAnswer, transactionId: String, transaction: TransactionPayload? = nil, requests: [RefundRequest],
        requestsComplete: Bool = true, now: Date
    ) -> Verdict {
        var refusals = bodyRefusals(answer, transaction: transaction ?? request(for: transactionId, in: requests)?.transaction)
        switch requestState(transactionId, requests: requests, complete: requestsComplete, now: now) {
        case .answerable(let request):
            if refusals.isEmpty { return .send(answer.body, answering: request) }
        case .refused(let refusal):
            refusals.append(refusal)
        }
        return .refused(refusals)
    }

    /// The rules about the body alone: consent, the fields' values, and what the transaction is.
    public static func bodyRefusals(_ answer: ConsumptionAnswer, transaction: TransactionPayload?) -> [ConsumptionRefusal] {
        var refusals: [ConsumptionRefusal] = []
        if !answer.customerConsented {
            refusals.append(ConsumptionRefusal(
                .noConsent, "The customer has not agreed to share this information with Apple: nothing is sent without their consent.",
                appleError: "InvalidCustomerConsentedError", code: 4_000_035))
        }
        if !answer.deliveryStatus.isKnown {
            refusals.append(ConsumptionRefusal(
                .unknownDeliveryStatus, "\(answer.deliveryStatus.rawValue) is not a delivery status Apple knows.",
                appleError: "InvalidDeliveryStatusError", code: 4_000_036))
        }
        if let preference = answer.refundPreference, !preference.isKnown {
            refusals.append(ConsumptionRefusal(
                .unknownRefundPreference, "\(preference.rawValue) is not a refund preference Apple knows (DECLINE, GRANT_FULL, GRANT_PRORATED).",
                appleError: "InvalidRefundPreferenceError", code: 4_000_044))
        }
        if let percentage = answer.consumptionPercentage {
            if transaction?.type == .autoRenewableSubscription {
                refusals.append(ConsumptionRefusal(
                    .percentageOnSubscription,
                    "A consumption share cannot be sent for an auto-renewable subscription (Apple works it out): leave it empty.",
                    appleError: "ConsumptionPercentageAutoRenewableSubscriptionError", code: 4_000_209))
            }
            if !(0...100_000).contains(percentage) {
                refusals.append(ConsumptionRefusal(
                    .percentageOutOfRange, "The consumption share must be 0 to 100 %.", appleError: "ConsumptionPercentageOutOfRangeError"))
            } else if percentage != 0 && answer.deliveryStatus != .delivered {
                refusals.append(ConsumptionRefusal(
                    .percentageWhenUndelivered, "Content that was not delivered cannot have been used: the share must be 0 % or empty.",
                    appleError: "UndeliveredConsumptionPercentageNonZeroError"))
            }
        }
        if transaction?.inAppOwnershipType == .familyShared {
            refusals.append(ConsumptionRefusal(
                .familyShared, "This is a family member's shared access, not a purchase: Apple takes no consumption information for it.",
                appleError: "FamilyTransactionNotSupportedError", code: 4_000_185))
        }
        if transaction?.advancedCommerceInfo != nil {
            refusals.append(ConsumptionRefusal(
                .advancedCommerce, "Advanced Commerce purchases are answered with Send Consumption Information V1, which iapdesk does not send.",
                appleError: "AdvancedCommerceTransactionNotSupportedError"))
        }
        return refusals
    }

    public enum RequestState: Sendable, Equatable {
        case answerable(RefundRequest)
        case refused(ConsumptionRefusal)
    }

    /// Whether Apple asked about `transactionId` and is still waiting: its newest request, open
    /// (within 12 hours of its signedDate) and not answered already.
    public static func requestState(_ transactionId: String, requests: [RefundRequest], complete: Bool = true, now: Date) -> RequestState {
        guard let request = request(for: transactionId, in: requests) else {
            if !complete {
                return .refused(ConsumptionRefusal(
                    .requestsUnknown,
                    "Whether Apple asked about transaction \(transactionId) cannot be known now (its refund requests could not all be read), so neither can the deadline: nothing is sent. Try again."))
            }
            return .refused(ConsumptionRefusal(
                .notRequested,
                "Apple has not asked about transaction \(transactionId): no CONSUMPTION_REQUEST for it is in the store or Apple's notification history. Apple takes consumption information only in answer to one."))
        }
        if let answer = request.answer {
            if answer.applied {
                return .refused(ConsumptionRefusal(
                    .alreadyAnswered,
                    "This request was answered already (\(answer.agent ?? "someone"), \(DisplayFormat.date(answer.time))): one answer per request."))
            }
            if !answer.resolved {
                return .refused(ConsumptionRefusal(
                    .answerUnresolved,
                    "An answer to this request may have reached Apple (\(answer.state)): re-send it from the unresolved writes, or resolve it, before answering again."))
            }
        }
        guard now < request.deadline else {
            return .refused(ConsumptionRefusal(
                .pastDeadline,
                "Apple's 12 hours for this request ended \(DisplayFormat.date(request.deadline)) (asked \(DisplayFormat.date(request.requestedAt))): Apple no longer takes an answer, and an answer sent now is not weighed."))
        }
        return .answerable(request)
    }

    /// The newest request about `transactionId`: a customer who asks again gets a new request.
    public static func request(for transactionId: String, in requests: [RefundRequest]) -> RefundRequest? {
        requests.filter { $0.transactionId == transactionId }.max { ($0.requestedAt, $0.notificationUUID) < ($1.requestedAt, $1.notificationUUID) }
    }

    // MARK: Suggestions

    /// What the desk knows to suggest for a transaction: the agent (or a policy) changes what it
    /// knows better. Consent is never suggested: it is the customer's to give.
    public static func suggested(transaction: TransactionPayload?, appRefundPreference: RefundPreference?, now: Date) -> ConsumptionAnswer {
        var answer = ConsumptionAnswer(
            deliveryStatus: .delivered, sampleContentProvided: false, refundPreference: appRefundPreference, customerConsented: false)
        switch transaction?.type {
        case .nonRenewingSubscription?:
            // The share of the paid period that has passed is the share used.
            if let start = transaction?.purchaseDate, let end = transaction?.expiresDate, end > start {
                let share = min(1, max(0, now.timeIntervalSince(start) / end.timeIntervalSince(start)))
                answer.consumptionPercentage = Int32((share * 100).rounded()) * 1000
            }
        case .autoRenewableSubscription?:
            // Apple works the share out itself and refuses one sent (4000209).
            answer.consumptionPercentage = nil
        default:
            break
        }
        if transaction?.offerDiscountType == .freeTrial { answer.sampleContentProvided = true }
        return answer
    }

    /// Percent as an agent types it ("50", "12.5") to the wire's thousandths of a percent; nil
    /// for anything else.
    public static func percentage(fromPercent text: String) -> Int32? {
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite, (0...100).contains(value) else { return nil }
        return Int32((value * 1000).rounded())
    }
}
