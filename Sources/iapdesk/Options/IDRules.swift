import ArgumentParser
import DeskCore

/// IDs are checked here, with the console's rules, before anything reaches the server: a wrong
/// ID is a usage error (exit 64) that names the rule it breaks.
enum IDRules {
    static func transactionId(_ raw: String, _ name: String) throws {
        switch IDKind.classify(raw) {
        case .transactionId: return
        case .appAccountToken(let token):
            throw ValidationError("\(name) \(token) is a UUID, like the app's account token; this command takes a transaction ID: digits only, such as 2000000123456789. (iapdesk lookup \(token) finds the purchases seen with it.)")
        case .orderId(let order):
            throw ValidationError("\(name) \(order) looks like an order ID; this command takes a transaction ID: digits only, such as 2000000123456789. (iapdesk lookup \(order) finds the order's transactions.)")
        case .invalid(let reason):
            throw ValidationError("\(name): \(reason)")
        }
    }

    static func orderId(_ raw: String, _ name: String) throws {
        switch IDKind.classify(raw) {
        case .orderId: return
        case .appAccountToken(let token):
            throw ValidationError("\(name) \(token) is a UUID, like the app's account token, not an order ID. (iapdesk lookup \(token) finds the purchases seen with it.)")
        case .transactionId:
            throw ValidationError("\(name) \(raw) is digits only, like a transaction ID; an order ID is 6 to 20 letters and digits from the receipt e-mail, such as MK5TTTVWJH. (iapdesk transaction \(raw) shows a transaction.)")
        case .invalid(let reason):
            throw ValidationError("\(name): \(reason)")
        }
    }
}
