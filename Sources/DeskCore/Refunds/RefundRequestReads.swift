import AppStoreServerAPI
import DeskStore
import Foundation

/// The refund-request queue as read now: every CONSUMPTION_REQUEST of the environment, and what is
/// known to be missing from it.
public struct RefundRequestQueue: Sendable {
    public var requests: [RefundRequest]
    /// What could not be read ("the store's received notifications are left out: …").
    public var notes: [String]
    /// False when Apple's history could not be read whole: "Apple did not ask" is then unknown.
    public var complete: Bool
    public var readAt: Date
    /// What the consumption policy does for each request, by notificationUUID, when a policy is known.
    public var policyDecisions: [String: RefundPolicyDecision] = [:]

    public init(requests: [RefundRequest], notes: [String], complete: Bool, readAt: Date) {
        self.requests = requests
        self.notes = notes
        self.complete = complete
        self.readAt = readAt
    }
}

/// Reads the refund requests for the console and the command line alike: Apple's notification
/// history (the request and Apple's two decisions), the store `listen` writes, and the answers in
/// the audit ledger, joined by `RefundRequests.merge`.
public enum RefundRequestReads {
    /// The notification types the queue is made of: the request and Apple's decisions.
    public static let types: [NotificationType] = [.consumptionRequest, .refund, .refundDeclined]

    /// The queue for `services`' environment since `since` (Apple keeps 180 days in Production, 30
    /// in Sandbox; the window is cut to that).
    /// With a `policy`, also what it does for each request (the agents' overrides in the store counted),
    /// so that the queue shows it before the receiver acts.
    public static func load(_ services: DeskServices, since: TimeInterval, policy: RefundPolicy? = nil, now: Date = Date()) async -> RefundRequestQueue {
        let retention = services.client.environment.environment.notificationHistoryRetention - 3600
        let window = now.addingTimeInterval(-min(since, retention))..<now
        var notes: [String] = []
        var complete = true
        var sightings: [RefundRequests.Sighting] = []
        do {
            sightings += try await apple(services.client, services.verification, window: window)
        } catch {
            complete = false
            notes.append("Apple's notification history could not be read (\(services.failure(error).summary))")
        }
        if let received = services.received {
            do {
                sightings += try await stored(try await received.store(), window: window, environment: services.client.environment.environment)
            } catch NotificationStoreError.missing {
                // No receiver has written a store yet: nothing arrived here, which is no problem.
            } catch {
                notes.append("the store's received notifications are left out (\(error))")
            }
        }
        var writes: [WriteRecord] = []
        if let ledger = services.writes?.ledger {
            do {
                writes = try await ledger.writes()
            } catch {
                notes.append("the answers sent cannot be read from the audit ledger (\(error))")
            }
        } else {
            notes.append("the audit ledger cannot be opened, so the answers sent are not shown")
        }
        var queue = RefundRequestQueue(requests: RefundRequests.merge(sightings, writes: writes), notes: notes, complete: complete, readAt: now)
        if let policy {
            var overrides: [RefundOverride] = []
            if let store = try? await services.received?.store() as? any RefundPolicyStore {
                do {
                    overrides = RefundOverride.current(try await store.refundOverrideChanges())
                } catch {
                    queue.notes.append("the policy's per-customer overrides cannot be read (\(error))")
                }
            }
            for request in queue.requests {
                queue.policyDecisions[request.notificationUUID] = policy.decide(RefundPolicyCase(request: request), overrides: overrides, now: now)
            }
        }
        return queue
    }

    /// Apple's history of the three types in `window`, one query each (a type filter and a
    /// transaction filter cannot go together).
    public static func apple(
        _ client: AppStoreServerClient, _ verification: VerifyingService, window: Range<Date>, types: [NotificationType] = types
    ) async throws -> [RefundRequests.Sighting] {
        var sightings: [RefundRequests.Sighting] = []
        for type in types {
            var request = NotificationHistoryRequest(startDate: window.lowerBound, endDate: window.upperBound)
            request.notificationType = type
            for try await page in client.notificationHistoryPages(request: request) {
                for item in page.notificationHistory ?? [] {
                    guard let signed = item.signedPayload else { continue }
                    let decoded = await verification.notification(signed)
                    if let sighting = RefundRequests.Sighting(NotificationRow(decoded: decoded, signedPayload: signed, attempts: [])) {
                        sightings.append(sighting)
                    }
                }
                if page.hasMore != true { break }
            }
        }
        return sightings
    }

    /// The requests and decisions the receiver stored (verified when they arrived) for `environment`.
    public static func stored(
        _ store: any NotificationStore, window: Range<Date>, environment: AppStoreEnvironment, types: [NotificationType] = types
    ) async throws -> [RefundRequests.Sighting] {
        var sightings: [RefundRequests.Sighting] = []
        for type in types {
            for notification in try await store.notifications(NotificationFilter(since: window.lowerBound, type: type.rawValue))
            where notification.verdict == "verified" && (notification.environment == nil || notification.environment == environment.rawValue) {
                if let sighting = RefundRequests.Sighting(stored: notification) { sightings.append(sighting) }
            }
        }
        return sightings
    }
}
