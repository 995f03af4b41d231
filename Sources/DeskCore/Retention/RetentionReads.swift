import AppStoreServerAPI
import Foundation

/// Reads an environment's Retention Messaging configuration, each part handed over as it
/// arrives: the image list, the message list and the realtime URL at once, then the default
/// message of each product and locale asked (Apple allows one Get Default Message a second).
public enum RetentionReads {
    /// Default messages asked at most in one read: past this, a read would take minutes.
    public static let maxSlots = 24

    /// The slots of `products` × `locales`, products first, cut at `maxSlots`.
    public static func slots(products: [String], locales: [String]) -> [DefaultMessageSlot] {
        Array(products.flatMap { product in locales.map { DefaultMessageSlot(productId: product, locale: $0) } }.prefix(maxSlots))
    }

    public static func load(
        _ slots: [DefaultMessageSlot], client: AppStoreServerClient, failure: @escaping @Sendable (any Error) -> DisplayError,
        each: @escaping @Sendable (RetentionPart) -> Void
    ) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    each(.images(.success(try await client.getImageList().imageIdentifiers ?? [])))
                } catch {
                    each(.images(.failure(failure(error))))
                }
            }
            group.addTask {
                do {
                    each(.messages(.success(try await client.getMessageList().messageIdentifiers ?? [])))
                } catch {
                    each(.messages(.failure(failure(error))))
                }
            }
            group.addTask {
                do {
                    each(.realtimeURL(.success(try await client.getRealtimeURL().realtimeURL)))
                } catch let error as APIError where error.serverCode == .realtimeUrlNotFound {
                    each(.realtimeURL(.success(nil)))
                } catch {
                    each(.realtimeURL(.failure(failure(error))))
                }
            }
            group.addTask { await loadDefaults(slots, client: client, failure: failure, each: each) }
        }
    }

    /// The default message of each slot, one after the other (Apple allows one a second); a slot
    /// with none answers nil (Apple's 404 4040020).
    public static func loadDefaults(
        _ slots: [DefaultMessageSlot], client: AppStoreServerClient, failure: @escaping @Sendable (any Error) -> DisplayError,
        each: @escaping @Sendable (RetentionPart) -> Void
    ) async {
        for slot in slots {
            if Task.isCancelled { return }
            do {
                let answer = try await client.getDefaultMessage(productId: slot.productId, locale: slot.locale)
                each(.defaultMessage(slot, .success(answer.messageIdentifier)))
            } catch where error.serverCode == .defaultMessageNotFound {
                each(.defaultMessage(slot, .success(nil)))
            } catch {
                each(.defaultMessage(slot, .failure(failure(error))))
            }
        }
    }
}

/// The products whose default messages are asked when none are named, and where they came from
/// in words: the `:retention` screen and `retention default list` choose them alike.
public struct RetentionProducts: Sendable, Equatable {
    public var products: [String]
    /// "the demo's auto-renewable subscriptions", "the notifications received here", …; empty when none.
    public var source: String

    public init(products: [String], source: String) {
        self.products = products
        self.source = source
    }

    /// The demo's auto-renewable subscriptions when known (`catalog`); else the products of the
    /// customer on screen, then of the notifications received here, each once, in that order.
    public static func known(catalog: [String], customer: [String] = [], notifications: [String] = []) -> RetentionProducts {
        if !catalog.isEmpty { return RetentionProducts(products: catalog, source: "the demo's auto-renewable subscriptions") }
        var seen: [String] = []
        for id in customer + notifications where !id.isEmpty && !seen.contains(id) { seen.append(id) }
        let fromCustomer = Set(customer.filter { !$0.isEmpty }).count
        var sources: [String] = []
        if fromCustomer > 0 { sources.append("the subscriptions of the customer on screen") }
        if seen.count > fromCustomer { sources.append("the notifications received here") }
        return RetentionProducts(products: seen, source: sources.joined(separator: " and "))
    }
}
