import AppStoreServerAPI
import DeskCore
import DeskStore
import Foundation

/// A customer as the console finds them, with what the store holds about them: the ledger's writes,
/// the agents' notes and the notifications received. What `case` and `timeline` print.
struct CustomerRecords {
    var customer: CustomerState
    var writes: [WriteRecord] = []
    var notes: [CaseNote] = []
    var received: [StoredNotification] = []

    /// Looks `id` up as the console does; a store that cannot be read leaves its part out and says so.
    static func load(_ id: String, session: Session, what: String) async throws -> CustomerRecords {
        // The store is read for its account index, so an app account token finds the customer.
        let services = DeskServices(
            client: session.client, verifier: session.verifier, verifierProblem: session.verifierProblem, received: await AccountIndexAccess.received(session))
        let customer = await CustomerLookup.load(id, services: services, environment: session.environment, timeout: session.timeout)
        guard customer.transaction.value != nil || customer.order.value?.transactions.isEmpty == false
                || (customer.account.isLoaded && customer.history.value?.isEmpty == false)
        else {
            // Why the lookup ended, in its own words ("Apple has no purchases under order ID …").
            if let error = customer.order.error ?? customer.account.error ?? customer.transaction.error ?? customer.history.error {
                throw CLIError(error.summary, hint: error.hint, status: .notFound)
            }
            throw CLIError("No customer found for \(id) in \(session.environmentLabel).", hint: "Check the ID; an order ID is read from the receipt e-mail.", status: .notFound)
        }
        var records = CustomerRecords(customer: customer)
        do {
            let (ledger, noteStore) = try await AuditLedgerAccess.openWithNotes(profileStore: session.profile.store, demo: session.demo != nil)
            let recorded = try await AuditLedgerAccess.reading(ledger) { try await $0.writes() }
            records.writes = CaseFile.writes(for: customer, in: recorded, environment: session.environment, bundleId: session.profile.bundleId)
            records.notes = try await noteStore.notes(concerning: customer.noteSubjects)
            if let store = noteStore as? any NotificationStore {
                var found: [Int64: StoredNotification] = [:]
                for original in customer.originalTransactionIds {
                    for stored in try await store.notifications(NotificationFilter(transactionId: original)) { found[stored.id] = stored }
                }
                records.received = found.values.sorted { $0.id < $1.id }
            }
        } catch {
            StandardStreams.error("note: the \(what) has no writes, notes or received notifications from the store: \(error)\n")
        }
        return records
    }

    var timeline: [TimelineEvent] { Timeline.events(customer: customer, writes: writes, notes: notes, received: received) }
}
