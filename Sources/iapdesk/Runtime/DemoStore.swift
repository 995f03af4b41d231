import AppStoreServerAPI
import DemoServer
import DeskCore
import DeskStore
import Foundation
import WebhookReceiver

/// The demo's notification store: one file in the demo's state folder for `iapdesk demo` and every
/// `--demo` command (listen, received, reconcile, recover, replay), so that what one receives or
/// re-posts the others see. Made on first use with what the demo's history would have delivered;
/// `iapdesk demo --reset` removes it with the rest of the demo's state.
enum DemoStore {
    static var path: String { DemoStateLocation.path() + "/notifications.sqlite" }
    /// Written once the store holds the demo's arrivals: a store without it was cut short while being made.
    static var seededMarker: String { path + ".seeded" }

    /// The store, made and seeded first when it is not there yet (by one process at a time).
    static func prepare(_ demo: DemoServer, verifier: SignedDataVerifier?) async throws -> StoreLocation {
        let path = self.path
        let marker = seededMarker
        do {
            try FileManager.default.createDirectory(atPath: DemoStateLocation.path(), withIntermediateDirectories: true)
            try await FileLock.withLock(path + ".lock") {
                guard !FileManager.default.fileExists(atPath: marker) else { return }
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
                let store = try await SQLiteNotificationStore.open(path: path)
                do {
                    if let verifier { try await DemoArrivals.seed(demo, store: store, verifier: verifier) }
                    try await seedAnswers(demo)
                    try await store.close()
                } catch {
                    try? await store.close()
                    throw error
                }
                guard FileManager.default.createFile(atPath: marker, contents: Data()) else {
                    throw CLIError("cannot write \(marker)", status: .failure)
                }
            }
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError("The demo's notification store \(path) cannot be made: \(error).", hint: "Check \(DemoStateLocation.path()) is writable.", status: .failure)
        }
        return .file(path: path)
    }

    /// The refund requests the demo's data shows answered, in the demo's audit ledger as the policy
    /// that answered them wrote them: an intent and Apple's acceptance.
    static func seedAnswers(_ demo: DemoServer) async throws {
        let answers = demo.seededAnswers(.production)
        guard !answers.isEmpty else { return }
        let ledger = try AuditLedger(path: AuditLedgerAccess.demoPath)
        let account = WriteAccount(profile: "demo", environment: .production, baseURL: "demo", bundleId: DemoServer.bundleId, keyId: DemoServer.keyId)
        // A store made again after being cut short finds its answers there already.
        let written = Set(try await ledger.writes().map(\.requestIdentifier))
        for seeded in answers where !written.contains(PolicyResponder.requestIdentifier(seeded.notificationUUID)) {
            let endpoint = Endpoints.sendConsumptionInformation(transactionId: seeded.transactionId, request: seeded.answer)
            var line = AuditLedger.Entry(
                time: seeded.answeredAt, event: .intent, requestIdentifier: PolicyResponder.requestIdentifier(seeded.notificationUUID),
                write: WriteKind.consumption.rawValue, method: endpoint.method, path: endpoint.path,
                body: endpoint.body.map { String(decoding: $0, as: UTF8.self) }, account: account,
                subject: "transaction \(seeded.transactionId) (refund request \(seeded.notificationUUID); customer consent: the app's terms give it)",
                source: .policy, agent: seeded.agent)
            try await ledger.append(line)
            line.time = seeded.answeredAt.addingTimeInterval(0.3)
            line.event = .outcome
            line.outcome = .applied
            try await ledger.append(line)
        }
    }

    /// Keeps a body the demo's own receiver took, as `listen --demo` would have: a notification
    /// delivered to the demo itself arrived, so reconcile finds no gap the demo made up.
    static func keep(_ body: Data, demo: DemoServer, verifier: SignedDataVerifier) async -> Bool {
        guard case .success(let delivery) = await NotificationIntake.delivery(
            from: body, verifier: verifier, receivedAt: Date(), remoteAddress: "the demo's own receiver") else { return true }
        do {
            let location = try await prepare(demo, verifier: verifier)
            let store = try await StoreAccess.open(location)
            let recorded = (try? await store.record(delivery)) != nil
            try? await store.close()
            return recorded
        } catch {
            return false
        }
    }
}
