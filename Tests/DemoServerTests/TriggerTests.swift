import AppStoreServerAPI
@testable import DemoServer
import Foundation
import Testing

/// `iapdesk trigger`'s notifications: every documented type and subtype, made from a demo customer
/// as Apple would make it, changed by `--set`, and verified by the demo's own verifier.
struct TriggerTests {
    /// The notification verified whole (nested payloads too) by the demo's verifier for its environment.
    func verified(_ triggered: TriggeredNotification, server: DemoServer) async throws -> DecodedNotification {
        let decoded = await (try server.makeVerifier(environment: triggered.environment)).verifyNotification(triggered.signedPayload)
        #expect(decoded.isFullyVerified, "\(triggered.kind): \(decoded.notification.status.summary)")
        return decoded
    }

    func trigger(_ kind: String, _ server: DemoServer, customer: String? = nil, environment: AppStoreEnvironment = .sandbox, set: [String] = []) throws -> TriggeredNotification {
        try server.trigger(TriggerRequest(
            kind: try NotificationKind.parse(kind), customer: customer, environment: environment,
            assignments: try set.map { try FieldAssignment.parse($0) }))
    }

    @Test func aRefundCarriesARevokedTransactionAndVerifies() async throws {
        let server = try await SharedDemo.get()
        for environment in [AppStoreEnvironment.sandbox, .production] {
            let triggered = try trigger("REFUND", server, environment: environment)
            let decoded = try await verified(triggered, server: server)
            let payload = try #require(decoded.notification.verifiedPayload)
            #expect(payload.notificationType == .refund && payload.subtype == nil && payload.version == "2.0")
            #expect(payload.data?.environment == environment && payload.data?.bundleId == DemoServer.bundleId)
            #expect(payload.data?.appAppleId == (environment == .production ? DemoServer.appAppleId : nil))
            let transaction = try #require(decoded.transaction?.verifiedPayload)
            #expect(transaction.revocationDate == payload.signedDate)
            #expect(transaction.revocationReason != nil && transaction.revocationType != nil)
            #expect(transaction.type == .consumable, "the default refund is a consumable's")
            #expect(triggered.customer?.chosen == "the default for REFUND")
        }
        // A subscription's refund: revoked, with its renewal info and the revoked status.
        let subscriber = try server.customer("Active monthly subscription")
        let refunded = try trigger("refund", server, customer: subscriber.originalTransactionId, environment: .production)
        let decoded = try await verified(refunded, server: server)
        #expect(decoded.notification.payload?.data?.status == .revoked)
        #expect(decoded.transaction?.payload?.originalTransactionId == subscriber.originalTransactionId)
        #expect(decoded.transaction?.payload?.revocationDate != nil)
        #expect(decoded.renewalInfo?.payload?.autoRenewStatus == .off)
    }

    @Test func aConsumptionRequestCarriesItsReasonAndAnUnrevokedPurchase() async throws {
        let server = try await SharedDemo.get()
        let triggered = try trigger("consumption_request", server, environment: .production)
        let decoded = try await verified(triggered, server: server)
        #expect(decoded.notification.payload?.data?.consumptionRequestReason == .unintendedPurchase)
        let transaction = try #require(decoded.transaction?.payload)
        #expect(transaction.revocationDate == nil && transaction.revocationReason == nil)
        #expect(decoded.renewalInfo == nil, "a consumable has no renewal info")

        let legal = try trigger("CONSUMPTION_REQUEST", server, environment: .production, set: ["data.consumptionRequestReason=legal"])
        #expect(try await verified(legal, server: server).notification.payload?.data?.consumptionRequestReason == .legal)
    }

    @Test func aFailedRenewalInGracePeriodSaysWhenTheGracePeriodEnds() async throws {
        let server = try await SharedDemo.get()
        let triggered = try trigger("DID_FAIL_TO_RENEW/GRACE_PERIOD", server, environment: .production)
        let decoded = try await verified(triggered, server: server)
        #expect(decoded.notification.payload?.data?.status == .billingGracePeriod)
        let renewal = try #require(decoded.renewalInfo?.payload)
        #expect((renewal.gracePeriodExpiresDate ?? .distantPast) > triggered.signedDate)
        #expect(renewal.isInBillingRetryPeriod == true)

        let retry = try trigger("DID_FAIL_TO_RENEW", server)
        let decodedRetry = try await verified(retry, server: server)
        #expect(decodedRetry.notification.payload?.data?.status == .billingRetry)
        #expect(decodedRetry.renewalInfo?.payload?.gracePeriodExpiresDate == nil)
    }

    @Test func everyDocumentedTypeAndSubtypeIsMadeAndVerifies() async throws {
        let server = try await SharedDemo.get()
        let kinds = NotificationKind.documented
        #expect(kinds.count == NotificationType.knownValues.reduce(0) { $0 + $1.allowedSubtypes.subtypes.count + ($1.allowedSubtypes.withoutSubtype ? 1 : 0) })
        #expect(kinds.contains(NotificationKind(.externalPurchaseToken, .activeTokenReminder)))
        for environment in [AppStoreEnvironment.sandbox, .production] {
            for kind in kinds {
                let triggered = try server.trigger(TriggerRequest(kind: kind, environment: environment))
                #expect(try NotificationKind.parse(kind.description.lowercased()) == kind)
                let decoded = try await verified(triggered, server: server)
                let payload = try #require(decoded.notification.payload)
                #expect(payload.notificationType == kind.type && payload.subtype == kind.subtype, "\(kind)")
                // Exactly one of Apple's four objects, the one the type carries.
                let objects = [payload.data != nil, payload.summary != nil, payload.externalPurchaseToken != nil, payload.appData != nil]
                #expect(objects.filter { $0 }.count == 1, "\(kind)")
                switch kind.type {
                case .externalPurchaseToken:
                    #expect(payload.externalPurchaseToken?.externalPurchaseId?.hasPrefix("SANDBOX") == (environment == .sandbox))
                case .rescindConsent:
                    #expect(decoded.appTransaction?.payload?.receiptType == environment)
                case .renewalExtension where kind.subtype == .summary:
                    #expect(payload.summary?.succeededCount != nil && payload.summary?.requestIdentifier != nil)
                case .test:
                    #expect(payload.data?.signedTransactionInfo == nil)
                case .oneTimeCharge:
                    #expect(decoded.transaction?.payload?.type != .autoRenewableSubscription && decoded.renewalInfo == nil)
                default:
                    #expect(decoded.transaction != nil, "\(kind) carries a transaction")
                }
            }
        }
    }

    @Test func eachTypeSetsWhatItImplies() async throws {
        let server = try await SharedDemo.get()
        let expired = try await verified(try trigger("EXPIRED/VOLUNTARY", server, environment: .production), server: server)
        #expect(expired.notification.payload?.data?.status == .expired)
        #expect(expired.renewalInfo?.payload?.expirationIntent == .customerCancelled && expired.renewalInfo?.payload?.autoRenewStatus == .off)

        let renewed = try trigger("DID_RENEW", server, customer: try server.customer("Expired: billing error").originalTransactionId, environment: .production)
        let decodedRenewal = try await verified(renewed, server: server)
        #expect(decodedRenewal.notification.payload?.data?.status == .active)
        #expect((decodedRenewal.transaction?.payload?.expiresDate ?? .distantPast) > renewed.signedDate, "a renewal's period covers now")
        #expect(decodedRenewal.transaction?.payload?.transactionReason == .renewal)

        let revoked = try await verified(try trigger("REVOKE", server, environment: .production), server: server)
        #expect(revoked.transaction?.payload?.inAppOwnershipType == .familyShared && revoked.transaction?.payload?.revocationType == .familyRevoke)

        let disabled = try await verified(try trigger("did_change_renewal_status/auto_renew_disabled", server), server: server)
        #expect(disabled.renewalInfo?.payload?.autoRenewStatus == .off)

        let upgrade = try await verified(
            try trigger("DID_CHANGE_RENEWAL_PREF/UPGRADE", server, customer: try server.customer("Active monthly subscription").originalTransactionId, environment: .production),
            server: server)
        #expect(upgrade.transaction?.payload?.productId == DemoCatalog.proPlusMonthly.productId)
        #expect(upgrade.renewalInfo?.payload?.autoRenewProductId == DemoCatalog.proPlusMonthly.productId)

        let pending = try await verified(try trigger("PRICE_INCREASE/PENDING", server), server: server)
        #expect(pending.renewalInfo?.payload?.priceIncreaseStatus == .customerHasNotResponded)
        #expect((pending.renewalInfo?.payload?.renewalPrice ?? 0) > DemoCatalog.proMonthly.price)
    }

    @Test func eachOneIsNewAndAboutTheCustomerAskedFor() async throws {
        let server = try await SharedDemo.get()
        let customer = try server.customer("Billing retry")
        let first = try trigger("DID_RENEW/BILLING_RECOVERY", server, customer: customer.orderId, environment: .production)
        let second = try trigger("DID_RENEW/BILLING_RECOVERY", server, customer: customer.originalTransactionId, environment: .production)
        #expect(first.notificationUUID != second.notificationUUID)
        #expect(UUID(uuidString: first.notificationUUID) != nil)
        #expect(first.signedDate <= second.signedDate && abs(first.signedDate.timeIntervalSinceNow) < 60)
        #expect(first.customer?.scenario == "Billing retry" && second.customer?.originalTransactionId == customer.originalTransactionId)
        #expect(first.customer?.chosen == "order \(customer.orderId)")

        // An app account token names the customer too; a bundle ID of another app is carried (and refused by the demo's verifier).
        if let token = customer.appAccountToken {
            #expect(try trigger("EXPIRED/BILLING_RETRY", server, customer: token, environment: .production).customer?.scenario == "Billing retry")
        }
        let other = try server.trigger(TriggerRequest(kind: NotificationKind(.refund), environment: .production, bundleId: "com.example.other"))
        let decoded = await (try server.makeVerifier()).verifyNotification(other.signedPayload)
        #expect(decoded.notification.payload?.data?.bundleId == "com.example.other" && !decoded.isFullyVerified)
    }

    @Test func setChangesFieldsOfEachObjectBeforeSigning() async throws {
        let server = try await SharedDemo.get()
        let uuid = UUID().uuidString.lowercased()
        let triggered = try trigger("DID_FAIL_TO_RENEW/GRACE_PERIOD", server, environment: .production, set: [
            "data.status=3", "transaction.price=990", "TRANSACTION.currency=EUR", "renewal.gracePeriodExpiresDate=+3d",
            "renewal.eligibleWinBackOfferIds=a,b", "payload.notificationUUID=\(uuid)", "transaction.storefrontId=null",
            "renewal.expirationIntent=5", "transaction.revocationDate=2026-01-02T03:04:05Z",
        ])
        let decoded = try await verified(triggered, server: server)
        let payload = try #require(decoded.notification.payload)
        #expect(payload.data?.status == .billingRetry)
        #expect(payload.notificationUUID == uuid && triggered.notificationUUID == uuid)
        let transaction = try #require(decoded.transaction?.payload)
        #expect(transaction.price == 990 && transaction.currency == "EUR" && transaction.storefrontId == nil)
        #expect(transaction.revocationDate == ISO8601DateFormatter().date(from: "2026-01-02T03:04:05Z"))
        let renewal = try #require(decoded.renewalInfo?.payload)
        #expect(renewal.gracePeriodExpiresDate == triggered.signedDate.addingTimeInterval(3 * 86_400))
        #expect(renewal.eligibleWinBackOfferIds == ["a", "b"] && renewal.expirationIntent == .other)

        let summary = try trigger("RENEWAL_EXTENSION/SUMMARY", server, set: ["summary.succeededCount=7", "summary.storefrontCountryCodes=[\"USA\",\"MEX\"]"])
        #expect(try await verified(summary, server: server).notification.payload?.summary?.succeededCount == 7)
        #expect(summary.payload.summary?.storefrontCountryCodes == ["USA", "MEX"])
        let token = try trigger("EXTERNAL_PURCHASE_TOKEN/UNREPORTED", server, set: ["token.externalPurchaseId=SANDBOX_abc"])
        #expect(try await verified(token, server: server).notification.payload?.externalPurchaseToken?.externalPurchaseId == "SANDBOX_abc")
    }

    @Test func wrongSetsAreRefusedWithWhatTheKeyTakes() async throws {
        func refusal(_ text: String) -> TriggerError? {
            do {
                _ = try FieldAssignment.parse(text)
                return nil
            } catch {
                return error
            }
        }
        #expect(refusal("data.status")?.message.contains("KEY=VALUE") == true)
        #expect(refusal("status=2")?.message.contains("starts with the object") == true)
        #expect(refusal("transaction.prize=1")?.hint?.contains("price") == true)
        #expect(refusal("transaction.price=abc")?.message.contains("whole number") == true)
        #expect(refusal("transaction.quantity=99999999999")?.message.contains("32-bit") == true)
        #expect(refusal("data.status=9")?.message.contains("1 (Active)") == true)
        #expect(refusal("data.consumptionRequestReason=BORED")?.message.contains("UNINTENDED_PURCHASE") == true)
        #expect(refusal("renewal.renewalDate=tomorrow")?.message.contains("a date") == true)
        #expect(refusal("transaction.isUpgraded=maybe")?.message.contains("true or false") == true)
        #expect(refusal("data.signedTransactionInfo=x")?.message.contains("signed from transaction") == true)
        #expect(refusal("payload.notificationType=REFUND")?.message.contains("argument") == true)
        #expect(refusal("transaction.commitmentInfo=[1]")?.message.contains("JSON object") == true)
        #expect(refusal("renewal.gracePeriodExpiresDate=+16d") == nil)
        #expect(refusal("transaction.price=null") == nil)

        // An object the notification does not carry, and a nested object of the wrong shape.
        let server = try await SharedDemo.get()
        #expect(throws: TriggerError.self) {
            try server.trigger(TriggerRequest(kind: NotificationKind(.oneTimeCharge), assignments: [try FieldAssignment.parse("renewal.autoRenewStatus=0")]))
        }
        #expect(throws: TriggerError.self) {
            try server.trigger(TriggerRequest(
                kind: NotificationKind(.didRenew), assignments: [try FieldAssignment.parse("transaction.commitmentInfo={\"billingPeriodNumber\":\"x\"}")]))
        }
    }

    @Test func wrongTypesSubtypesAndCustomersAreSaidSo() async throws {
        func refusal(_ text: String) -> TriggerError? {
            do {
                _ = try NotificationKind.parse(text)
                return nil
            } catch {
                return error
            }
        }
        #expect(refusal("FOO")?.hint?.contains("ONE_TIME_CHARGE") == true)
        #expect(refusal("SUBSCRIBED")?.message.contains("INITIAL_BUY or RESUBSCRIBE") == true)
        #expect(refusal("DID_RENEW/GRACE_PERIOD")?.hint?.contains("DID_RENEW/BILLING_RECOVERY") == true)
        #expect(refusal("REFUND/VOLUNTARY")?.message.contains("no subtype") == true)
        #expect(refusal("expired/voluntary") == nil && refusal("did-fail-to-renew/grace-period") == nil)
        #expect(refusal("EXTERNAL_PURCHASE_TOKEN/CREATED") == nil)

        let server = try await SharedDemo.get()
        func failure(_ request: TriggerRequest) -> TriggerError? {
            do {
                _ = try server.trigger(request)
                return nil
            } catch {
                return error
            }
        }
        let unknown = failure(TriggerRequest(kind: NotificationKind(.refund), customer: "123"))
        #expect(unknown?.kind == .notFound)
        let production = try server.customer("Active monthly subscription").originalTransactionId
        #expect(failure(TriggerRequest(kind: NotificationKind(.refund), customer: production))?.hint?.contains("--environment Production") == true)
        #expect(failure(TriggerRequest(kind: NotificationKind(.test), customer: production, environment: .production))?.kind == .usage)
        let noSubscription = try server.customer("Non-consumable and non-renewing subscription").originalTransactionId
        #expect(failure(TriggerRequest(kind: NotificationKind(.didRenew), customer: noSubscription, environment: .production))?.message.contains("no auto-renewable") == true)
        #expect(failure(TriggerRequest(kind: NotificationKind(.rescindConsent), customer: noSubscription, environment: .production))?.message.contains("no app transaction") == true)
    }
}
