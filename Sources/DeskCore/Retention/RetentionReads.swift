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
            group.addTask {
                for slot in slots {
                    if Task.isCancelled { return }
                    do {
                        let answer = try await client.getDefaultMessage(productId: slot.productId, locale: slot.locale)
                        each(.defaultMessage(slot, .success(answer.messageIdentifier)))
                    } catch let error as APIError where error.serverCode == .defaultMessageNotFound {
                        each(.defaultMessage(slot, .success(nil)))
                    } catch {
                        each(.defaultMessage(slot, .failure(failure(error))))
                    }
                }
            }
        }
    }
}
