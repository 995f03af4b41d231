import AppStoreServerAPI
import Foundation

/// What the demo's Apple knows about its Retention Messaging configuration and Apple's answers do
/// not say: which messages show an image, which default messages name a message. The command line
/// says it beside the demo's answers (an image in use, a message deleted with its defaults).
extension DemoServer {
    /// The messages that show `imageIdentifier` (as their image or a bullet point's), in upload order.
    public func retentionMessages(usingImage imageIdentifier: String, _ environment: AppStoreEnvironment) -> [String] {
        let key = imageIdentifier.lowercased()
        return (try? store.read(environment) { data throws(DemoAPIError) in
            data.retention.messageOrder.filter { data.retention.messages[$0]?.imageIdentifiers.contains(key) ?? false }
        }) ?? []
    }

    /// The products and locales whose default message is `messageIdentifier`.
    public func retentionDefaults(naming messageIdentifier: String, _ environment: AppStoreEnvironment) -> [(productId: String, locale: String)] {
        let key = messageIdentifier.lowercased()
        let keys = (try? store.read(environment) { data throws(DemoAPIError) in
            data.retention.defaults.filter { $0.value == key }.map(\.key).sorted()
        }) ?? []
        return keys.compactMap { slot in
            guard let cut = slot.lastIndex(of: "/") else { return nil }
            return (String(slot[..<cut]), String(slot[slot.index(after: cut)...]))
        }
    }
}
