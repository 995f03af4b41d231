import Foundation

/// How writes are named to people.
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
