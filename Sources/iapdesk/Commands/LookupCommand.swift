import AppStoreServerAPI
import ArgumentParser
import DeskCore
import DeskStore
import Foundation

struct LookupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lookup",
        abstract: "Find a customer's purchases by the order ID on their receipt, the app's account ID (appAccountToken) or an app transaction ID.",
        discussion: """
            An order ID (such as MK5TTTVWJH) is looked up with Apple's Look Up Order ID, in Production only. An app \
            transaction ID (digits, from the app) is Apple's own key for the customer's download of the app: its history is \
            read from Apple. An appAccountToken (the UUID the app sets at purchase, its own user ID) is found in the store's \
            account index, which knows only what iapdesk saw (notifications received by listen, customers looked up, and \
            iapdesk index); the answer says where and when each link was seen.
            """)

    @Argument(help: "An order ID (MK5TTTVWJH), an app account token (a UUID) or an app transaction ID (digits).") var id: String?
    @OptionGroup(title: "Many customers") var bulk: BulkOptions
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var rawOption: RawOption
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        try bulk.validate(id: id, rules: check)
    }

    @Sendable func check(_ id: String) throws {
        switch IDKind.classify(id) {
        case .invalid(let reason): throw ValidationError("ID: \(reason)")
        case .orderId(let order):
            if let environment = global.environment, environment.lowercased() != "production" {
                throw ValidationError("Look Up Order ID is available in Production only: Apple offers no order lookup in \(environment). Drop --environment, or look up a transaction ID with iapdesk transaction \(order == id ? "ID" : order).")
            }
        case .transactionId, .appAccountToken: return
        }
    }

    func run() async throws {
        if bulk.isBulk {
            return try await BulkRun(
                command: "lookup", endpoint: Self.endpoint, options: bulk, global: global, columns: TransactionRecord.csvColumns,
                validate: check, read: show
            ).run()
        }
        try await withSession(global) { session, printer in try await show(id ?? "", session, printer) }
    }

    /// Where an ID's lookup starts: Apple's order lookup, the store's index, or Apple's transactions.
    @Sendable static func endpoint(_ id: String) -> String {
        switch IDKind.classify(id) {
        case .orderId: return "Look Up Order ID"
        case .appAccountToken: return "the store's account index"
        default: return "Get Transaction Info"
        }
    }

    /// One customer's purchases by whichever kind of ID this is: printed, or kept as the JSON document.
    @Sendable func show(_ id: String, _ session: Session, _ printer: Printer) async throws {
        switch IDKind.classify(id) {
        case .orderId(let order): try await lookUpOrder(order, session, printer)
        case .appAccountToken(let token): try await lookUpAccount(token, session, printer)
        case .transactionId(let digits): try await lookUpAppTransaction(digits, session, printer)
        case .invalid: return
        }
    }

    private func lookUpOrder(_ order: String, _ session: Session, _ printer: Printer) async throws {
        let response = try await session.client.lookUpOrderId(orderId: order)
        var transactions: [VerifiedPayload<TransactionPayload>] = []
        for jws in response.signedTransactions ?? [] { transactions.append(await session.verification.transaction(jws)) }
        printer.emit(LookupOutput.Order(
            orderId: order, status: response.status, valid: response.status == .valid, environment: session.environment,
            transactions: transactions.map(TransactionRecord.init)))
        guard response.status == .valid else {
            throw CLIError("Order \(order) is not valid: Apple knows no purchases under it.",
                           hint: "Check the order ID on the customer's receipt e-mail (10 letters and digits).", status: .notFound)
        }
        printer.text("Order \(order) in \(session.environmentLabel): \(DisplayFormat.count(transactions.count, "transaction"))\n")
        printer.text(Records.transactionTable(transactions, raw: rawOption.raw).render())
        try requireVerified(transactions.map(\.status))
    }

    private func lookUpAccount(_ token: String, _ session: Session, _ printer: Printer) async throws {
        let (links, store) = try await AccountIndexAccess.links(token, session: session, storeFlag: storeOptions.store)
        printer.emit(LookupOutput.Account(appAccountToken: token, store: store, originalTransactions: links.map(LookupOutput.Link.init)))
        guard !links.isEmpty else { throw AccountIndexAccess.notSeen(token, store: store) }
        printer.text("App account token \(token): \(DisplayFormat.count(links.count, "original transaction")) seen in \(store)\n")
        var table = TextTable("Original transaction", "Environment", "Last seen", "Where", "Apple signed")
        for link in links {
            table.add([
                link.originalTransactionId, link.environment.isEmpty ? "-" : link.environment, DisplayFormat.relative(link.lastSeen),
                link.source.phrase, DisplayFormat.relative(link.signedDate),
            ])
        }
        printer.text(table.render())
        printer.text("""
            The index knows only what iapdesk saw (listen, lookups, iapdesk index); the app may have set this token on other purchases too.
            Next: iapdesk case \(links[0].originalTransactionId)\(global.followUpFlags)

            """)
    }

    private func lookUpAppTransaction(_ digits: String, _ session: Session, _ printer: Printer) async throws {
        // Apple tells a transaction ID from an app transaction ID: its transaction lookup refuses the latter.
        var environment: AppStoreEnvironment?
        var usedFallback = false
        do {
            let located = try await session.client.withEnvironmentFallback { client throws(APIError) in
                try await client.getTransactionInfo(transactionId: digits)
            }
            (environment, usedFallback) = (located.environment, located.usedFallback)
        } catch {
            switch error.serverCode {
            case .appTransactionIdNotSupported?: break  // An app transaction ID: found below.
            case .transactionIdNotFound?:
                throw CLIError("Apple knows no transaction or app transaction \(digits) in \(session.environmentLabel).", hint: "Check the ID; an order ID is read from the receipt e-mail.", status: .notFound)
            default: throw error
            }
        }
        let isTransaction = environment != nil
        // The customer's app download, when they have one (a transaction's customer may not).
        var app: VerifiedPayload<AppTransactionPayload>?
        do {
            let found = try await session.client.withEnvironmentFallback { client throws(APIError) in
                try await client.getAppTransactionInfo(anyTransactionId: digits)
            }
            if environment == nil { (environment, usedFallback) = (found.environment, found.usedFallback) }
            app = await session.verification.expecting(found.environment).appTransaction(found.value.signedAppTransactionInfo ?? "")
        } catch {
            guard isTransaction, error.serverCode == .appTransactionDoesNotExist else { throw error }
            app = nil
        }
        let located = environment ?? session.environment
        let scoped = session.verification.expecting(located)
        let client = session.client.client(for: located) ?? session.client
        // Apple's history takes any of the customer's IDs: every purchase of the customer is listed.
        let listing = await PagedListing.fetchHistory(client, anyTransactionId: digits, query: TransactionHistoryQuery(sort: .descending)) { signed in
            await scoped.transactions(signed)
        }
        try listing.requireFirstPage()
        let links = AccountLink.merged(listing.items.flatMap { transaction -> [AccountLink] in
            guard transaction.status.isVerified, let t = transaction.payload else { return [] }
            return AccountLink.links(
                appAccountToken: t.appAccountToken, appTransactionId: t.appTransactionId, originalTransactionId: t.originalTransactionId,
                environment: t.environment?.rawValue, source: .lookup, seen: Date(), signedDate: t.signedDate)
        })
        await AccountIndexAccess.remember(links, session: session, storeFlag: storeOptions.store)
        let payload = app?.payload
        printer.emit(LookupOutput.AppTransaction(
            query: digits, kind: isTransaction ? "transactionId" : "appTransactionId", appTransactionId: payload?.appTransactionId,
            environment: located, appTransaction: payload.map(LookupOutput.Download.init), transactions: listing.items.map(TransactionRecord.init)))
        let what = isTransaction ? "Transaction \(digits)" : "App transaction \(digits)"
        let download = payload.map { "the customer's first download \(DisplayFormat.day($0.originalPurchaseDate))" } ?? "no app download on the customer's account"
        printer.text("\(what) in \(located.label)\(usedFallback ? " (after Production did not know it)" : ""): \(download), \(DisplayFormat.count(listing.items.count, "transaction"))\n")
        printer.text(Records.transactionTable(listing.items, raw: rawOption.raw).render())
        try listing.requireComplete(noun: "transactions")
        try requireVerified((app.map { [$0.status] } ?? []) + listing.items.map(\.status))
    }
}

/// `lookup --json`: one document for each kind of ID.
enum LookupOutput {
    /// An order ID, looked up with Apple.
    struct Order: Encodable {
        var orderId: String
        var status: OrderLookupStatus?
        var valid: Bool
        var environment: AppStoreEnvironment
        var transactions: [TransactionRecord]
    }

    /// An app account token, found in the store's account index.
    struct Account: Encodable {
        var appAccountToken: String
        var store: String
        var originalTransactions: [Link]
    }

    /// Where and when the index saw an original transaction under the token.
    struct Link: Encodable {
        var originalTransactionId: String
        var environment: String?
        var source: String
        var firstSeen: String
        var lastSeen: String
        var signedDate: String

        init(_ link: AccountLink) {
            (originalTransactionId, environment) = (link.originalTransactionId, link.environment.isEmpty ? nil : link.environment)
            source = link.source.rawValue
            (firstSeen, lastSeen, signedDate) = (DisplayFormat.iso(link.firstSeen), DisplayFormat.iso(link.lastSeen), DisplayFormat.iso(link.signedDate))
        }
    }

    /// A transaction ID or app transaction ID: the customer's app download and history.
    struct AppTransaction: Encodable {
        var query: String
        var kind: String
        var appTransactionId: String?
        var environment: AppStoreEnvironment
        var appTransaction: Download?
        var transactions: [TransactionRecord]
    }

    struct Download: Encodable {
        var appTransactionId: String?
        var originalPurchaseDate: String?
        var originalPlatform: PurchasePlatform?

        init(_ payload: AppTransactionPayload) {
            (appTransactionId, originalPurchaseDate) = (payload.appTransactionId, payload.originalPurchaseDate.map(DisplayFormat.iso))
            originalPlatform = payload.originalPlatform
        }
    }
}
