import AppStoreServerAPI
import DeskCore
import DeskStore
import Foundation

/// The refund requests as the command line reads them: the session's client, its store and its
/// audit ledger, through the core's `RefundRequestReads`.
enum RefundQueue {
    /// The stored notifications of `types` in `window`, for the session's environment; none when
    /// no receiver has made a store yet.
    static func stored(
        _ session: Session, storeOptions: StoreOptions, window: Range<Date>, types: [NotificationType] = RefundRequestReads.types
    ) async throws -> [RefundRequests.Sighting] {
        let location = try await StoreAccess.resolve(storeOptions, session: session).location
        do {
            return try await StoreAccess.with(location) { store in
                try await RefundRequestReads.stored(store, window: window, environment: session.environment, types: types)
            }
        } catch NotificationStoreError.missing {
            return []
        }
    }

    /// The CONSUMPTION_REQUESTs of the last `span` from Apple's history and the store, joined with
    /// the answers in the ledger. `complete` is false when Apple's history could not be read.
    static func requests(_ session: Session, storeOptions: StoreOptions, span: TimeInterval = 30 * 86_400) async -> RefundRequestQueue {
        let now = Date()
        let window = now.addingTimeInterval(-min(span, session.environment.notificationHistoryRetention - 3600))..<now
        var notes: [String] = []
        var complete = true
        var sightings: [RefundRequests.Sighting] = []
        do {
            sightings += try await RefundRequestReads.apple(session.client, session.verification, window: window, types: [.consumptionRequest])
        } catch {
            complete = false
            notes.append("Apple's notification history could not be read (\(DisplayError(error).summary))")
        }
        do {
            sightings += try await stored(session, storeOptions: storeOptions, window: window, types: [.consumptionRequest])
        } catch {
            notes.append("the store's received notifications are left out (\(error))")
        }
        var writes: [WriteRecord] = []
        do {
            let ledger = try await AuditLedgerAccess.open(profileStore: session.profile.store, demo: session.demo != nil)
            writes = try await ledger.writes()
        } catch {
            notes.append("the answers sent cannot be read from the audit ledger (\(error))")
        }
        return RefundRequestQueue(requests: RefundRequests.merge(sightings, writes: writes), notes: notes, complete: complete, readAt: now)
    }
}
