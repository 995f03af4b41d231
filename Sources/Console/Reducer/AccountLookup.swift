import AppStoreServerAPI
import DeskCore
import DeskStore
import Foundation

/// Finding a customer by the app's account token: the store's index names the original
/// transactions seen with it, and the customer is loaded from the one seen last.
enum AccountLookup {
    struct Found: Sendable {
        var lookup: Int
        var result: Result<[AccountLink], DisplayError>
    }

    static func find(_ state: inout ConsoleState, token: String) -> [ConsoleEffect] {
        guard let lookup = state.customer?.lookup else { return [] }
        let request = CustomerReducer.start(&state, "Find app account token \(token)")
        return [.task(PaneTask(request: request, name: "find app account token \(token)") { services, _ in
            CustomerAnswer.accountLinks(Found(lookup: lookup, result: await CustomerReads.accountLinks(token, services)))
        })]
    }

    /// Takes the index's answer.
    static func receive(_ state: inout ConsoleState, request: Int, _ found: Found) -> [ConsoleEffect] {
        state.inFlight[request] = nil
        guard state.customer?.lookup == found.lookup, state.customer?.account.isLoading == true else { return [] }
        return CustomerReducer.apply(&state, .accountLinks(found.result))
    }
}
