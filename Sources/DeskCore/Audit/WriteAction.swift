import AppStoreServerAPI
import Foundation

/// How writes are named to people: the kind in words for sentences, and the action a ledger line
/// records ("retention image upload", "advanced-commerce cancel"), read from its method and path
/// so lines written before the action was shown read the same way.
extension WriteKind {
    /// "renewal extension", for sentences such as "The renewal extension for … may have been applied".
    public var words: String {
        switch self {
        case .extend: return "renewal extension"
        case .massExtend: return "mass renewal extension"
        case .consumption: return "consumption information"
        case .appAccountToken: return "app account token change"
        case .finishTransaction: return "finishing of a transaction"
        case .retention: return "Retention Messaging change"
        case .advancedCommerce: return "Advanced Commerce action"
        case .other: return "write"
        }
    }
}

extension AuditLedger.Entry {
    /// The write and what it did, as `iapdesk audit` and the timeline show it: the kind, then for
    /// Retention Messaging and Advanced Commerce the action (an upload and a delete differ).
    public var action: String {
        guard let detail = Self.actionDetail(write: write, method: method, path: path) ?? Self.extensionAsked(write: write, body: body)
        else { return write }
        return "\(write) \(detail)"
    }

    /// "7 days, customer satisfaction": what an extension asked for, read from the body it sent.
    static func extensionAsked(write: String, body: String?) -> String? {
        guard write == WriteKind.extend.rawValue || write == WriteKind.massExtend.rawValue, let body,
              let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
              let days = object["extendByDays"] as? Int
        else { return nil }
        let reason = (object["extendReasonCode"] as? Int).map { ExtendReasonCode($0).label.lowercased() }
        return DisplayFormat.count(days, "day") + (reason.map { ", " + $0 } ?? "")
    }

    static func actionDetail(write: String, method: String, path: String) -> String? {
        let parts = path.split(separator: "/").map(String.init)
        switch write {
        case WriteKind.retention.rawValue:
            // /inApps/v1/messaging/{object}/...
            guard parts.count >= 4 else { return nil }
            let verb = method == "DELETE" ? "delete" : nil
            switch parts[3] {
            case "image": return "image " + (verb ?? "upload")
            case "message": return "message " + (verb ?? "upload")
            case "default": return "default message " + (verb ?? "set")
            case "realtime": return "realtime URL " + (verb ?? "set")
            case "performanceTest": return "performance test"
            default: return nil
            }
        case WriteKind.advancedCommerce.rawValue:
            // /advancedCommerce/v1/{subscription|transaction}/{action}/{transactionId}: named as the commands are.
            guard parts.count >= 4 else { return nil }
            switch parts[3] {
            case "cancel", "revoke", "migrate": return parts[3]
            case "requestRefund": return "refund"
            case "changeMetadata": return "change-metadata"
            case "changePrice": return "change-price"
            default: return nil
            }
        default:
            return nil
        }
    }
}
