import AppStoreServerAPI
import ArgumentParser
import DeskCore
import DeskStore
import Foundation

/// Fills the store's account index from what is already known: the notifications the store holds
/// and Apple's notification history.
struct IndexCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index",
        abstract: "Fill the store's account index (appAccountToken and app transaction ID to original transactions) from Apple's notification history.",
        discussion: """
            Apple offers no lookup by the app's own account ID (appAccountToken) or by app transaction ID, so the store keeps \
            an index of both, filled from every verified transaction and renewal info iapdesk sees: notifications received by \
            listen and customers looked up. This back-fills it: the notifications already in the store, then every \
            notification in Apple's history since --since (Apple keeps 180 days in Production, 30 in Sandbox), one page at a \
            time within Apple's rate limits. Only verified payloads are indexed. Running it again only moves sightings forward.
            """)

    @Option(name: .long, help: "From this signed date (default 180d; 2026-06-01, 30d, ...).") var since: String = "180d"
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await withSession(global, extraTime: 3600) { session, printer in
            let window = try NotificationHistoryWindow.make(since: since, until: nil, environment: session.environment)
            if let note = window.clampNote { StandardStreams.error("note: \(note)\n") }
            let location = try await StoreAccess.resolve(storeOptions, session: session).location
            let store = try await StoreAccess.open(location)
            defer { Task { try? await store.close() } }
            guard let index = store as? any AccountIndex else {
                throw CLIError("The store \(location.description) keeps no account index.", status: .configuration)
            }
            let fromStore = try await Self.storedLinks(store, window: window.range)
            try await Self.record(fromStore, in: index, location)
            guard session.verifier != nil else {
                throw CLIError(
                    "Only verified payloads are indexed, and Apple's cannot be verified here: \(session.verifierProblem ?? "no verifier").",
                    hint: "Set the profile's bundle_id (and app_apple_id for Production); iapdesk doctor checks it.", status: .configuration)
            }
            let listing = await PagedListing<AccountLink>.fetch(session.client.notificationHistoryPages(request: Self.request(window.range)), noun: "notifications") { page in
                var links: [AccountLink] = []
                for item in page.notificationHistory ?? [] {
                    guard let signed = item.signedPayload, let decoded = await session.verification.notification(signed) else { continue }
                    links += Self.links(decoded, source: .notificationHistory)
                }
                return links
            }
            try listing.requireFirstPage()
            try await Self.record(listing.items, in: index, location)
            let sizes = try await index.accountIndexSize()
            let tokens = sizes[.appAccountToken] ?? 0, apps = sizes[.appTransactionId] ?? 0
            let all = AccountLink.merged(fromStore + listing.items)
            printer.emit(IndexOutput(
                store: location.description, since: window.range.lowerBound.timeIntervalSince1970, environment: session.environment,
                linksFromStore: AccountLink.merged(fromStore).count, linksFromAppleHistory: AccountLink.merged(listing.items).count,
                appAccountTokens: tokens, appTransactionIds: apps))
            printer.text("""
                Indexed \(DisplayFormat.count(all.count, "link")) from the store and Apple's notification history since \(DisplayFormat.date(window.range.lowerBound)) (\(listing.pages) page\(listing.pages == 1 ? "" : "s")).
                The index in \(location.description) now knows \(DisplayFormat.count(tokens, "app account token")) and \(DisplayFormat.count(apps, "app transaction ID")).

                """)
            try listing.requireComplete(noun: "links")
        }
    }

    static func request(_ window: Range<Date>) -> NotificationHistoryRequest {
        var request = NotificationHistoryRequest()
        request.startDate = window.lowerBound
        request.endDate = window.upperBound
        return request
    }

    /// The links of the store's own verified notifications signed in the window (verified when they arrived).
    static func storedLinks(_ store: any NotificationStore, window: Range<Date>) async throws -> [AccountLink] {
        var links: [AccountLink] = []
        for stored in try await store.notifications(signedIn: window) where stored.verdict == "verified" {
            guard let payload = stored.decodedPayload,
                  let object = try? JSONSerialization.jsonObject(with: payload) as? [String: Any], let data = object["data"] as? [String: Any]
            else { continue }
            let transaction = (data["signedTransactionInfo"] as? String).flatMap {
                SignedDataInspector.decodeUnverified($0, as: TransactionPayload.self, reason: "verified on arrival").payload
            }
            let renewal = (data["signedRenewalInfo"] as? String).flatMap {
                SignedDataInspector.decodeUnverified($0, as: RenewalInfoPayload.self, reason: "verified on arrival").payload
            }
            links += AccountLink.links(
                appAccountToken: transaction?.appAccountToken ?? renewal?.appAccountToken,
                appTransactionId: transaction?.appTransactionId ?? renewal?.appTransactionId,
                originalTransactionId: transaction?.originalTransactionId ?? renewal?.originalTransactionId,
                environment: stored.environment, source: .store, seen: Date(), signedDate: stored.signedDate)
        }
        return links
    }

    /// A notification's links when it and what it carries verified.
    static func links(_ decoded: DecodedNotification, source: AccountLink.Source) -> [AccountLink] {
        guard decoded.notification.status.isVerified else { return [] }
        let transaction = decoded.transaction?.status.isVerified == true ? decoded.transaction?.payload : nil
        let renewal = decoded.renewalInfo?.status.isVerified == true ? decoded.renewalInfo?.payload : nil
        return AccountLink.links(
            appAccountToken: transaction?.appAccountToken ?? renewal?.appAccountToken,
            appTransactionId: transaction?.appTransactionId ?? renewal?.appTransactionId,
            originalTransactionId: transaction?.originalTransactionId ?? renewal?.originalTransactionId,
            environment: (transaction?.environment ?? renewal?.environment)?.rawValue, source: source, seen: Date(),
            signedDate: decoded.notification.payload?.signedDate)
    }

    static func record(_ links: [AccountLink], in index: any AccountIndex, _ location: StoreLocation) async throws {
        do {
            // In short transactions: a receiver writing the same rows waits for one chunk, not the back-fill.
            let merged = AccountLink.merged(links)
            for start in stride(from: 0, to: merged.count, by: 500) {
                try await index.recordAccountLinks(Array(merged[start..<min(merged.count, start + 500)]))
            }
        } catch {
            throw CLIError("The account index in \(location.description) cannot be written: \(error)", status: .failure)
        }
    }
}

/// `index --json`: the links found on each side, and what the index knows now.
struct IndexOutput: Encodable {
    var store: String
    /// Seconds since 1970.
    var since: Double
    var environment: AppStoreEnvironment
    var linksFromStore: Int
    var linksFromAppleHistory: Int
    var appAccountTokens: Int
    var appTransactionIds: Int
}
