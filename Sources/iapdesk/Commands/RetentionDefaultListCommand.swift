import AppStoreServerAPI
import ArgumentParser
import DemoServer
import DeskCore
import DeskStore
import Foundation
import Synchronization

/// `retention default list`: Apple has no endpoint that lists default messages, so each product
/// is asked in each locale (Get Default Message, one a second), as the console's :retention does.
struct RetentionDefaultListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "The default message of each product in each locale, asked one by one.",
        discussion: """
            Apple has no endpoint that lists default messages: each product is asked in each locale, and the output \
            says which were asked. Without --product: the demo's auto-renewable subscriptions with --demo, else the \
            products of the notifications received here. Without --locale: the profile's retention_locales, else en-US. \
            At most \(RetentionReads.maxSlots) product-locale pairs are asked.
            """)

    @Option(name: .long, help: "A product to ask about (repeatable).") var product: [String] = []
    @Option(name: .long, help: "A locale to ask in, such as fr-FR (repeatable).") var locale: [String] = []
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        for id in product where id.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("--product is empty.") }
        for text in locale where !RetentionLocale.isValid(text) {
            throw ValidationError("--locale \(text) is not a language and region joined by a hyphen, such as en-US or fr-FR.")
        }
    }

    func run() async throws {
        try await withSession(global, extraTime: Double(RetentionReads.maxSlots)) { session, printer in
            let products = try await askedProducts(session)
            let locales = askedLocales(session)
            let slots = RetentionReads.slots(products: products.products, locales: locales.locales)
            let leftOut = products.products.count - Set(slots.map(\.productId)).count
            let answers = Mutex<[DefaultMessageSlot: Result<String?, DisplayError>]>([:])
            await RetentionReads.loadDefaults(slots, client: session.client, failure: { DisplayError($0) }) { part in
                if case .defaultMessage(let slot, let result) = part { answers.withLock { $0[slot] = result } }
            }
            let read = answers.withLock { $0 }
            let records = slots.map { slot in RetentionDefaultRecord(slot, read[slot]) }
            printer.emit(RetentionDefaultListOutput(
                environment: session.environment.rawValue, productsFrom: products.source, localesFrom: locales.source,
                productsLeftOut: leftOut, defaults: records))
            var asked = "Asked \(DisplayFormat.count(products.products.count - leftOut, "product")) (\(products.source)) in \(locales.locales.joined(separator: ", ")) (\(locales.source))"
            if leftOut > 0 { asked += "; \(DisplayFormat.count(leftOut, "product")) left out, past \(RetentionReads.maxSlots) pairs (name them with --product)" }
            printer.text(asked + ", \(session.environmentLabel):")
            var table = TextTable("PRODUCT", "LOCALE", "DEFAULT MESSAGE")
            for record in records { table.add(record.productId, record.locale, record.messageIdentifier ?? record.error ?? "none") }
            printer.text(table.render())
            if let failure = slots.lazy.compactMap({ slot -> DisplayError? in
                if case .failure(let error)? = read[slot] { return error }
                return nil
            }).first {
                var error = failure.source.map(CLIError.init) ?? CLIError(failure.summary, status: .failure)
                error.hint = "The defaults above that read are shown. " + (error.hint ?? "")
                throw error
            }
        }
    }

    /// `--product`, else the products the console's :retention screen would ask.
    func askedProducts(_ session: Session) async throws -> RetentionProducts {
        if !product.isEmpty { return RetentionProducts(products: product.map { $0.trimmingCharacters(in: .whitespaces) }, source: "as given") }
        if session.demo != nil {
            return .known(catalog: DemoCatalog.all.filter { $0.type == .autoRenewableSubscription }.map(\.productId))
        }
        let received = try? await StoreAccess.with(try StoreOptions.location(flag: nil, profileStore: session.profile.store)) { store in
            try await store.notifications(NotificationFilter(limit: Self.notificationsRead)).compactMap(\.productId)
        }
        let known = RetentionProducts.known(catalog: [], notifications: received ?? [])
        guard !known.products.isEmpty else {
            throw CLIError(
                "No products to ask about: none are named, and no notification received here names one.",
                hint: "Name them with --product PRODUCT_ID (repeatable).", status: .usage)
        }
        return known
    }

    /// `--locale`, else the profile's retention_locales, else en-US; each normalised (en-us is en-US).
    func askedLocales(_ session: Session) -> (locales: [String], source: String) {
        func unique(_ list: [String]) -> [String] {
            list.map(RetentionLocale.normalized).reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
        }
        if !locale.isEmpty { return (unique(locale), "as given") }
        if !session.profile.retentionLocales.isEmpty { return (unique(session.profile.retentionLocales), "the profile's retention_locales") }
        return (["en-US"], "the default; retention_locales in the profile sets others")
    }

    /// As many notifications as the console's Live pane keeps.
    static let notificationsRead = 2_000
}
