import AppStoreServerAPI
import Crypto
import Foundation

/// The primitives the scenarios are written with: customers, purchases, subscription chains,
/// refunds and notifications, with IDs drawn deterministically from the seed.
struct DatasetBuilder {
    let anchor: Date
    let signer: JWSSigner
    var data: DemoEnvironmentData
    var rng: SeededGenerator
    private var nextTransaction: Int64
    private var nextWebOrder: Int64
    private var nextAppTransaction: Int64
    private var nextCustomer = 1
    private var usedOrders: Set<String> = []
    private var notificationCounter = 0

    static let day: TimeInterval = 86_400
    static let hour: TimeInterval = 3_600

    init(environment: AppStoreEnvironment, anchor: Date, signer: JWSSigner, seed: UInt64) {
        self.anchor = anchor
        self.signer = signer
        self.data = DemoEnvironmentData(environment: environment)
        self.rng = SeededGenerator(seed: seed)
        let production = environment == .production
        nextTransaction = production ? 2_000_000_400_000_000 : 2_000_000_800_000_000
        nextWebOrder = production ? 2_000_000_040_000_000 : 2_000_000_080_000_000
        nextAppTransaction = production ? 704_000_000_000_100 : 705_000_000_000_100
    }

    var isProduction: Bool { data.environment == .production }

    func daysAgo(_ days: Double) -> Date { anchor.addingTimeInterval(-days * Self.day) }
    func daysAhead(_ days: Double) -> Date { anchor.addingTimeInterval(days * Self.day) }

    // MARK: IDs

    mutating func transactionId() -> String {
        nextTransaction += Int64.random(in: 1...97, using: &rng)
        return String(nextTransaction)
    }

    mutating func webOrderLineItemId() -> String {
        nextWebOrder += Int64.random(in: 1...13, using: &rng)
        return String(nextWebOrder)
    }

    /// A receipt-style order ID such as MK5TTTVWJH.
    mutating func orderId(_ fixed: String? = nil) -> String {
        if let fixed, usedOrders.insert(fixed).inserted { return fixed }
        let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        while true {
            let id = String((0..<10).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &rng)] })
            if usedOrders.insert(id).inserted { return id }
        }
    }

    mutating func uuid() -> String {
        let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) }
        var b = bytes
        b[6] = (b[6] & 0x0F) | 0x40
        b[8] = (b[8] & 0x3F) | 0x80
        let hex = b.map { String(format: "%02x", $0) }.joined()
        let i = hex.startIndex
        func part(_ from: Int, _ to: Int) -> Substring { hex[hex.index(i, offsetBy: from)..<hex.index(i, offsetBy: to)] }
        return "\(part(0, 8))-\(part(8, 12))-\(part(12, 16))-\(part(16, 20))-\(part(20, 32))"
    }

    /// The UUID the demo app set at purchase, as a real app sets its own user ID: most customers
    /// have one, one in five (and those who never downloaded the app) none. Made from the customer's
    /// number, not the dataset's random sequence, so every other ID stays what it was.
    static func appAccountToken(customer number: Int, environment: AppStoreEnvironment?) -> String? {
        guard number % 5 != 3 else { return nil }
        let digest = Array(SHA256.hash(data: Data("iapdesk-demo-account \(environment?.rawValue ?? "") \(number)".utf8)))
        var b = Array(digest.prefix(16))
        b[6] = (b[6] & 0x0F) | 0x40
        b[8] = (b[8] & 0x3F) | 0x80
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])).uuidString.lowercased()
    }

    // MARK: Customers and purchases

    mutating func customer(_ scenario: String, storefront: String = "USA", appTransaction: Bool = true, since: Date? = nil) -> Int {
        let number = nextCustomer
        nextCustomer += 1
        var appTransactionId: String?
        if appTransaction {
            nextAppTransaction += Int64.random(in: 1...500, using: &rng)
            let id = String(nextAppTransaction)
            appTransactionId = id
            var app = AppTransactionPayload()
            app.receiptType = data.environment
            app.appAppleId = isProduction ? DemoCatalog.appAppleId : nil
            app.bundleId = DemoCatalog.bundleId
            app.applicationVersion = DemoCatalog.bundleVersion
            app.versionExternalIdentifier = 8_412_345
            app.originalPurchaseDate = since ?? daysAgo(400)
            app.originalApplicationVersion = "1.0"
            app.deviceVerification = Data((0..<48).map { _ in UInt8.random(in: 0...255, using: &rng) }).base64EncodedString()
            app.deviceVerificationNonce = uuid()
            app.appTransactionId = id
            app.originalPlatform = .iOS
            data.appTransactions[id] = app
            data.customerByID[id] = number
        }
        data.customers[number] = DemoCustomer(
            number: number, scenario: scenario, appTransactionId: appTransactionId,
            appAccountToken: appTransaction ? Self.appAccountToken(customer: number, environment: data.environment) : nil, storefront: storefront)
        data.customerTransactions[number] = []
        return number
    }

    struct Offer {
        var type: OfferType
        var discount: OfferDiscountType?
        var identifier: String?
        var period: String?
        var price: Int64?
    }

    /// Records one transaction and returns its ID.
    @discardableResult
    mutating func purchase(
        _ customer: Int, _ product: DemoProduct, at date: Date, order: String? = nil, quantity: Int32 = 1,
        ownership: InAppOwnershipType = .purchased, offer: Offer? = nil, originalTransactionId: String? = nil,
        originalPurchaseDate: Date? = nil, reason: TransactionReason = .purchase, expires: Date? = nil
    ) -> String {
        let id = transactionId()
        let storefront = data.customers[customer]!.storefront
        var t = TransactionPayload()
        t.transactionId = id
        t.originalTransactionId = originalTransactionId ?? id
        t.bundleId = DemoCatalog.bundleId
        t.productId = product.productId
        t.subscriptionGroupIdentifier = product.subscriptionGroupIdentifier
        t.purchaseDate = date
        t.originalPurchaseDate = originalPurchaseDate ?? date
        t.quantity = quantity
        t.type = product.type
        t.inAppOwnershipType = ownership
        t.environment = data.environment
        t.storefront = storefront
        t.storefrontId = Self.storefrontIds[storefront] ?? "143441"
        t.transactionReason = product.type == .autoRenewableSubscription ? reason : .purchase
        t.currency = Self.currencies[storefront] ?? "USD"
        t.price = (offer?.price ?? product.price) * Int64(quantity)
        t.appTransactionId = data.customers[customer]!.appTransactionId
        t.appAccountToken = data.customers[customer]!.appAccountToken
        if product.type == .autoRenewableSubscription {
            t.webOrderLineItemId = webOrderLineItemId()
            t.expiresDate = expires ?? product.period!.advance(date, by: 1)
        }
        if let offer {
            t.offerType = offer.type
            t.offerDiscountType = offer.discount
            t.offerIdentifier = offer.identifier
            t.offerPeriod = offer.period
        }
        let orderId = order ?? orderId()
        data.transactions[id] = DemoTransaction(payload: t, orderId: orderId, customer: customer, modified: date, finished: true)
        data.customerTransactions[customer, default: []].append(id)
        data.orders[orderId, default: []].append(id)
        data.customerByID[id] = customer
        return id
    }

    struct Chain {
        let originalTransactionId: String
        var latestTransactionId: String
        var expires: Date
        var transactionIds: [String]
    }

    /// A subscription bought at `start` and renewed `renewals` times; the first period may carry an
    /// offer of `offerPeriodDays` (a free trial), after which the paid periods count from its end.
    /// Each period ends on the calendar, counted from the first paid period's start (`DemoPeriod`).
    mutating func subscribe(
        _ customer: Int, _ product: DemoProduct, start: Date, renewals: Int, firstOffer: Offer? = nil,
        ownership: InAppOwnershipType = .purchased, firstOrder: String? = nil, offerPeriodDays: Int? = nil
    ) -> Chain {
        let schedule = RenewalSchedule(product.period!, start: start, offerPeriodDays: offerPeriodDays)
        let first = purchase(customer, product, at: start, order: firstOrder, ownership: ownership, offer: firstOffer, expires: schedule.expiry(of: 0))
        var chain = Chain(originalTransactionId: first, latestTransactionId: first, expires: schedule.expiry(of: 0), transactionIds: [first])
        for index in stride(from: 1, through: renewals, by: 1) {
            let renewal = purchase(
                customer, product, at: chain.expires, ownership: ownership, originalTransactionId: first,
                originalPurchaseDate: start, reason: .renewal, expires: schedule.expiry(of: index))
            chain.latestTransactionId = renewal
            chain.expires = schedule.expiry(of: index)
            chain.transactionIds.append(renewal)
        }
        return chain
    }

    /// Renews a chain until its expiry lies after the anchor.
    mutating func subscribeUntilNow(
        _ customer: Int, _ product: DemoProduct, start: Date, firstOffer: Offer? = nil,
        ownership: InAppOwnershipType = .purchased, firstOrder: String? = nil, offerPeriodDays: Int? = nil
    ) -> Chain {
        let schedule = RenewalSchedule(product.period!, start: start, offerPeriodDays: offerPeriodDays)
        var renewals = 0
        while schedule.expiry(of: renewals) <= anchor { renewals += 1 }
        return subscribe(customer, product, start: start, renewals: renewals, firstOffer: firstOffer, ownership: ownership,
                         firstOrder: firstOrder, offerPeriodDays: offerPeriodDays)
    }

    /// When a chain's periods end: the first after the offer (or one period), then on the calendar.
    struct RenewalSchedule {
        let period: DemoPeriod
        /// The start of the first paid period, from which every paid period is counted.
        let paidStart: Date
        /// Paid periods already ended at the first expiry: 0 after an offer, else 1.
        let offset: Int

        init(_ period: DemoPeriod, start: Date, offerPeriodDays: Int?) {
            self.period = period
            if let offerPeriodDays {
                paidStart = DemoPeriod.days(offerPeriodDays).advance(start, by: 1)
                offset = 0
            } else {
                paidStart = start
                offset = 1
            }
        }

        /// The expiry of the chain's transaction `index` (0 the first purchase, 1 the first renewal, ...).
        func expiry(of index: Int) -> Date { period.advance(paidStart, by: index + offset) }
    }

    /// The start of a chain of `periods` periods ending at `end`, or up to three days before it
    /// when a short month clamps the day (`end` on the 30th of April: a start on the 28th of
    /// February, renewing on the 28th). The count never depends on the date, so the seeded IDs
    /// that follow are the same on every day.
    func start(_ period: DemoPeriod, periods: Int, endingBy end: Date) -> Date {
        period.advance(end, by: -periods)
    }

    /// Registers the chain's subscription state; `adjust` sets status-specific renewal fields.
    mutating func track(
        _ chain: Chain, customer: Int, status: SubscriptionStatus, autoRenew: Bool = true, inFreeOffer: Bool = false,
        adjust: (inout RenewalInfoPayload) -> Void = { _ in }
    ) {
        let latest = data.transactions[chain.latestTransactionId]!.payload
        let product = DemoCatalog.product(latest.productId!)!
        var renewal = RenewalInfoPayload()
        renewal.originalTransactionId = chain.originalTransactionId
        renewal.productId = latest.productId
        renewal.autoRenewProductId = latest.productId
        renewal.autoRenewStatus = autoRenew ? .on : .off
        renewal.environment = data.environment
        renewal.recentSubscriptionStartDate = data.transactions[chain.originalTransactionId]!.payload.purchaseDate
        renewal.renewalDate = latest.expiresDate
        renewal.currency = latest.currency
        renewal.renewalPrice = product.price
        renewal.appTransactionId = data.customers[customer]!.appTransactionId
        renewal.appAccountToken = data.customers[customer]!.appAccountToken
        adjust(&renewal)
        data.subscriptions[chain.originalTransactionId] = DemoSubscription(
            originalTransactionId: chain.originalTransactionId, customer: customer, groupId: product.subscriptionGroupIdentifier!,
            status: status, renewal: renewal, latestTransactionId: chain.latestTransactionId, extensions: [],
            inFreeOffer: inFreeOffer)
    }

    mutating func revoke(
        _ transactionId: String, at date: Date, reason: RevocationReason, type: RevocationType, percentage: Int32? = nil
    ) {
        data.transactions[transactionId]!.payload.revocationDate = date
        data.transactions[transactionId]!.payload.revocationReason = reason
        data.transactions[transactionId]!.payload.revocationType = type
        data.transactions[transactionId]!.payload.revocationPercentage = percentage
        data.transactions[transactionId]!.modified = date
    }

    // MARK: Notifications

    /// How delivery of a notification went.
    enum Delivery {
        case delivered
        /// These failures first, then success on the next retry.
        case retried([SendAttemptResult])
        /// Every attempt failed, each with the next result in turn.
        case neverDelivered([SendAttemptResult])
    }

    /// Apple's retry schedule in Production: 1, 12, 24, 48 and 72 hours after the previous attempt.
    static let retryIntervals: [TimeInterval] = [1, 12, 24, 48, 72].map { $0 * hour }

    func attempts(from date: Date, _ delivery: Delivery) -> [SendAttemptItem] {
        var results: [SendAttemptResult]
        switch delivery {
        case .delivered: results = [.success]
        case .retried(let failures): results = failures + [.success]
        case .neverDelivered(let failures):
            results = (0..<6).map { failures[$0 % failures.count] }
        }
        if !isProduction { results = Array(results.prefix(1)) }
        var items: [SendAttemptItem] = []
        var when = date.addingTimeInterval(2)
        for (index, result) in results.enumerated() {
            if index > 0 { when = when.addingTimeInterval(Self.retryIntervals[index - 1]) }
            guard when <= anchor else { break }
            items.append(SendAttemptItem(attemptDate: when, sendAttemptResult: result))
        }
        return items
    }

    /// Signs a notification as it was sent at `date`, with the transaction and renewal info of that moment.
    mutating func notify(
        _ type: NotificationType, _ subtype: NotificationSubtype? = nil, at date: Date, customer: Int,
        transaction transactionId: String?, delivery: Delivery = .delivered,
        consumptionReason: ConsumptionRequestReason? = nil
    ) {
        var payload = NotificationPayload.demo(type, subtype, uuid: uuid(), signedDate: date)
        var body = NotificationData.demoApp(data.environment)
        body.bundleVersion = DemoCatalog.bundleVersion
        body.consumptionRequestReason = consumptionReason
        if let transactionId, var transaction = data.transactions[transactionId]?.payload {
            transaction.signedDate = date
            body.signedTransactionInfo = try? signer.sign(transaction)
            if let subscription = data.subscriptions[transaction.originalTransactionId ?? ""] {
                var renewal = subscription.renewal
                renewal.signedDate = date
                body.signedRenewalInfo = try? signer.sign(renewal)
                body.status = subscription.status
            }
        }
        payload.data = body
        if type == .refund || type == .refundDeclined, let transactionId { data.refundDecisions[transactionId] = date }
        if type == .consumptionRequest, let transactionId { data.refundRequests[transactionId] = date }
        record(payload, customer: customer, delivery: delivery)
    }

    mutating func record(_ payload: NotificationPayload, customer: Int?, delivery: Delivery) {
        let signed = (try? signer.sign(payload)) ?? ""
        data.notifications.append(DemoNotification(
            uuid: payload.notificationUUID!, type: payload.notificationType!, subtype: payload.subtype,
            signedDate: payload.signedDate!, signedPayload: signed, attempts: attempts(from: payload.signedDate!, delivery),
            customer: customer))
    }

    static let storefrontIds = ["USA": "143441", "GBR": "143444", "FRA": "143442", "DEU": "143443", "JPN": "143462", "CAN": "143455", "MEX": "143468"]
    static let currencies = ["USA": "USD", "GBR": "GBP", "FRA": "EUR", "DEU": "EUR", "JPN": "JPY", "CAN": "CAD", "MEX": "MXN"]
}
