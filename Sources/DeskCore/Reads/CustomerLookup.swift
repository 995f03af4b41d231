import AppStoreServerAPI
import Foundation
import Synchronization

/// A customer looked up from any ID and read whole, for the command line: the same steps and parts
/// as the console's lookup, awaited instead of drawn.
public enum CustomerLookup {
    /// Every part of the customer named by `query`, by `timeout` at the latest: what has not
    /// answered by then says that it timed out.
    public static func load(_ query: String, services: DeskServices, environment: AppStoreEnvironment, timeout: TimeInterval) async -> CustomerState {
        // The ID as the console shows it: without its label, an order ID in capitals.
        let typed = IDKind.classify(query).id ?? query.trimmingCharacters(in: .whitespacesAndNewlines)
        let building = Building(CustomerState(query: typed, lookup: 0))
        let finished = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await read(typed, services: services, environment: environment, into: building)
                return true
            }
            group.addTask {
                try? await Task.sleep(nanoseconds: UInt64(max(timeout, 0) * 1_000_000_000))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        return building.withLock { customer in
            if !finished {
                customer.markCancelled(DisplayError(summary: "No answer within \(Int(timeout.rounded(.up))) s.", hint: "Try again, or give more time with --timeout."))
            }
            return customer
        }
    }

    private static func read(_ query: String, services: DeskServices, environment: AppStoreEnvironment, into building: Building) async {
        var step = building.withLock { $0.begin(in: environment) }
        if step == .wait {
            switch IDKind.classify(query) {
            case .orderId(let order):
                let answer = await CustomerReads.order(order, services)
                // Cut off by the deadline: the order is still unanswered, not absent.
                guard !Task.isCancelled else { return }
                step = building.withLock { $0.apply(.order(answer)) }
            case .appAccountToken(let token):
                let answer = await CustomerReads.accountLinks(token, services)
                guard !Task.isCancelled else { return }
                step = building.withLock { $0.apply(.accountLinks(answer)) }
            case .transactionId, .invalid:
                break
            }
        }
        switch step {
        case .wait:
            return
        case .nothingFound(let error):
            building.withLock { $0.markNothingFound(error) }
        case .loadParts(let anchor, let includeTransaction):
            let scoped = building.withLock { customer in
                customer.startLoading(anchor: anchor, includeTransaction: includeTransaction)
                return services.scoped(to: customer.environment)
            }
            for await part in CustomerReads.parts(anchor: anchor, includeTransaction: includeTransaction, services: scoped) {
                _ = building.withLock { $0.apply(part) }
            }
        }
    }

    /// The customer as its parts arrive, read whole when the lookup ends or its time is up.
    private final class Building: Sendable {
        private let customer: Mutex<CustomerState>
        init(_ customer: CustomerState) { self.customer = Mutex(customer) }
        func withLock<T: Sendable>(_ body: (inout CustomerState) -> T) -> T { customer.withLock { body(&$0) } }
    }
}
