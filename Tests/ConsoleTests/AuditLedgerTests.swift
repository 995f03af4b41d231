import AppStoreServerAPI
@testable import Console
import DemoServer
@testable import DeskCore
import Foundation
import Testing

/// The audit ledger: one append-only file, entries keyed by the account they were made in, and the
/// start-up reconciliation that only ever touches the running account's writes.
@Suite struct AuditLedgerTests {
    static let support = WriteAccount(
        profile: "support", environment: .production, baseURL: "https://api.storekit.itunes.apple.com", bundleId: "com.example", keyId: "2X9R4HXF34")
    static let staging = WriteAccount(
        profile: "staging", environment: .sandbox, baseURL: "https://api.storekit-sandbox.itunes.apple.com", bundleId: "com.example", keyId: "2X9R4HXF34")

    func ledger() throws -> AuditLedger {
        try AuditLedger(path: NSTemporaryDirectory() + "iapdesk-ledger-\(UUID().uuidString)/audit.jsonl")
    }

    func extendIntent(_ identifier: String, account: WriteAccount, at time: Date, days: Int32 = 7, id: String = "2000000400000044") -> AuditLedger.Entry {
        let body = ExtendRenewalDateRequest(extendByDays: days, extendReasonCode: .customerSatisfaction, requestIdentifier: identifier)
        let endpoint = Endpoints.extendSubscriptionRenewalDate(originalTransactionId: id, request: body)
        return AuditLedger.Entry(
            time: time, event: .intent, requestIdentifier: identifier, write: WriteKind.extend.rawValue, method: endpoint.method,
            path: endpoint.path, body: endpoint.body.map { String(decoding: $0, as: UTF8.self) }, account: account,
            subject: "original transaction \(id)", source: .console, agent: "sam")
    }

    func followUp(_ entry: AuditLedger.Entry, _ event: AuditLedger.Event, _ outcome: AuditLedger.OutcomeStatus? = nil, at time: Date) -> AuditLedger.Entry {
        var line = entry
        line.event = event
        line.outcome = outcome
        line.time = time
        return line
    }

    @Test func appendsNeverRewriteEarlierLines() async throws {
        let ledger = try ledger()
        let now = Date()
        try await ledger.append(extendIntent("a", account: Self.support, at: now))
        let before = try Data(contentsOf: URL(fileURLWithPath: ledger.location))
        try await ledger.append(followUp(extendIntent("a", account: Self.support, at: now), .outcome, .applied, at: now))
        let after = try Data(contentsOf: URL(fileURLWithPath: ledger.location))
        #expect(after.prefix(before.count) == before)
        #expect((try await ledger.entries()).count == 2)
        #expect((try await ledger.unresolved()).isEmpty)
        let mode = try FileManager.default.attributesOfItem(atPath: ledger.location)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func aRecordIsReSentOnlyWhenItRebuildsIntoTheRequestItRecorded() throws {
        let intent = extendIntent("r", account: Self.support, at: Date(), id: "2000000400000044")
        let target = try #require(WriteReconciler.extendTarget(WriteRecord.fold([intent])[0]))
        #expect(target.originalTransactionId == "2000000400000044")
        #expect(target.endpoint.path == intent.path && target.endpoint.method == intent.method)
        #expect(target.endpoint.body.map { String(decoding: $0, as: UTF8.self) } == intent.body)

        var otherPath = intent
        otherPath.path = "/inApps/v1/subscriptions/extend/2000000400000044/more"
        #expect(WriteReconciler.extendTarget(WriteRecord.fold([otherPath])[0]) == nil)
        var otherMethod = intent
        otherMethod.method = "POST"
        #expect(WriteReconciler.extendTarget(WriteRecord.fold([otherMethod])[0]) == nil)
        var otherBody = intent
        otherBody.body = intent.body?.replacingOccurrences(of: "\"extendByDays\":7", with: "\"extendByDays\" : 7")
        #expect(otherBody.body != intent.body)
        #expect(WriteReconciler.extendTarget(WriteRecord.fold([otherBody])[0]) == nil, "a body that is not the one sent is not re-sent")
    }

    @Test func aLineCutShortByACrashDoesNotSwallowTheNext() async throws {
        let ledger = try ledger()
        let handle = try #require(FileHandle(forWritingAtPath: ledger.location))
        handle.write(Data(#"{"time":"2026-11-23T10:00:00Z","event":"intent","requestIdent"#.utf8))
        try handle.close()
        try await ledger.append(extendIntent("b", account: Self.support, at: Date()))
        let (entries, unreadable) = (try await ledger.read())
        #expect(entries.map(\.requestIdentifier) == ["b"])
        #expect(unreadable == 1)
    }

    @Test func writesAreKeyedByAccountAndRequestIdentifier() async throws {
        let now = Date()
        // Two accounts happen to use one identifier: two writes, each with its own outcome.
        let entries = [
            extendIntent("same", account: Self.support, at: now),
            extendIntent("same", account: Self.staging, at: now),
            followUp(extendIntent("same", account: Self.staging, at: now), .outcome, .applied, at: now),
        ]
        let records = WriteRecord.fold(entries)
        #expect(records.count == 2)
        #expect(records.first { $0.account == Self.support }?.isResolved == false)
        #expect(records.first { $0.account == Self.staging }?.isResolved == true)
    }

    @Test func aReSendWithoutAnOutcomeStaysUnresolved() async throws {
        let now = Date()
        let intent = extendIntent("c", account: Self.support, at: now.addingTimeInterval(-3600))
        // Killed during the start-up re-send: an intent and a re-send, no outcome.
        let record = try #require(WriteRecord.fold([intent, followUp(intent, .resend, at: now)]).first)
        #expect(!record.isResolved)
        #expect(record.stateLabel.contains("re-sent"))
        // An unknown outcome keeps it open too; only an answer or a hand resolution closes it.
        #expect(WriteRecord.fold([intent, followUp(intent, .outcome, .unknown, at: now)]).first?.isResolved == false)
        #expect(WriteRecord.fold([intent, followUp(intent, .outcome, .refused, at: now)]).first?.isResolved == true)
        let closed = try #require(WriteRecord.fold([intent]).first).resolution(note: "checked", source: .commandLine, agent: "sam", now: now)
        #expect(WriteRecord.fold([intent, closed]).first?.isResolved == true)
    }

    /// On a team's store, another agent's write of the same account may be on the wire right now:
    /// a console started meanwhile neither re-sends it nor asks about it.
    @Test func anotherAgentsWriteIsTheirsToFinish() async throws {
        let now = Date()
        let mine = extendIntent("mine", account: Self.support, at: now.addingTimeInterval(-60))
        var theirs = extendIntent("theirs", account: Self.support, at: now.addingTimeInterval(-5))
        theirs.agent = "kim"
        let plan = WriteReconciler.plan(WriteRecord.fold([mine, theirs]), accounts: [Self.support], agent: "sam", now: now)
        #expect(plan.resend.map(\.record.requestIdentifier) == ["mine"])
        #expect(plan.ask.isEmpty)
        #expect(plan.otherAgents.map(\.requestIdentifier) == ["theirs"])
        var state = ConsoleState(profileName: "support", environment: .production, isDemo: false, bundleId: "com.example", readOnly: false, themeName: "default")
        _ = ConsoleReducer.reconcile(&state, plan)
        #expect(state.toasts.contains { $0.text.contains("1 write of this account by kim without an outcome yet") })
    }

    @Test func reconciliationTouchesOnlyTheRunningAccount() async throws {
        let now = Date()
        let recent = extendIntent("recent", account: Self.support, at: now.addingTimeInterval(-60))
        let old = extendIntent("old", account: Self.support, at: now.addingTimeInterval(-3 * 3600))
        let resentLately = followUp(old, .resend, at: now.addingTimeInterval(-30))
        let otherProfile = extendIntent("other", account: Self.staging, at: now.addingTimeInterval(-60))
        var consumption = extendIntent("consumption", account: Self.support, at: now.addingTimeInterval(-60))
        consumption.write = WriteKind.consumption.rawValue
        consumption.method = "PUT"
        consumption.path = "/inApps/v2/transactions/consumption/2000000400000044"

        let plan = WriteReconciler.plan(
            WriteRecord.fold([recent, old, otherProfile, consumption]), accounts: [Self.support], now: now)
        #expect(plan.resend.map(\.record.requestIdentifier) == ["recent"])
        #expect(plan.resend.first?.extend?.isResend == true)
        #expect(plan.resend.first?.extend?.environment == .production)
        #expect(Set(plan.ask.map(\.record.requestIdentifier)) == ["old", "consumption"])
        #expect(plan.ask.first { $0.record.requestIdentifier == "consumption" }?.extend == nil)
        #expect(plan.otherAccounts.map(\.requestIdentifier) == ["other"])

        // A write re-sent a moment ago (and killed again) is re-sent again, with the same identifier.
        let again = WriteReconciler.plan(WriteRecord.fold([old, resentLately]), accounts: [Self.support], now: now)
        #expect(again.resend.map(\.record.requestIdentifier) == ["old"])
        #expect(again.resend.first?.extend?.body.requestIdentifier == "old")

        // Started under the other profile: nothing of support's is touched, and it says so.
        let elsewhere = WriteReconciler.plan(WriteRecord.fold([recent, old]), accounts: [Self.staging], now: now)
        #expect(elsewhere.resend.isEmpty && elsewhere.ask.isEmpty)
        var state = ConsoleState(profileName: "staging", environment: .sandbox, isDemo: false, bundleId: "com.example", readOnly: false, themeName: "default")
        let effects = ConsoleReducer.reconcile(&state, elsewhere)
        #expect(effects.isEmpty)
        #expect(state.overlay == nil)
        #expect(state.toasts.last?.text.contains("2 unfinished writes of other profiles or accounts left untouched") == true)
    }

    @Test func theConsoleReSendsARecentExtensionOnceAndShowsIt() async throws {
        let path = NSTemporaryDirectory() + "iapdesk-reconcile-\(UUID().uuidString).jsonl"
        let harness = try await ConsoleHarness.start(ledgerPath: path)
        defer { Task { await harness.stop() } }
        let id = harness.server.seedIDs().activeSubscriptionOriginalTransactionIds[0]
        let account = harness.writes.account(for: try harness.server.makeClient())
        let intent = extendIntent("5d0c7a52-91e4-4c55-8a3e-52f0d2b1c001", account: account, at: Date().addingTimeInterval(-20), id: id)
        try await harness.writes.ledger.append(intent)
        // Another profile's unfinished write sits in the same ledger.
        try await harness.writes.ledger.append(extendIntent("5d0c7a52-91e4-4c55-8a3e-52f0d2b1c002", account: Self.staging, at: Date(), id: id))

        let plan = WriteReconciler.plan((try await harness.writes.ledger.unresolved()), accounts: [account], now: Date())
        harness.receive(.tick(now: Date()))
        for effect in ConsoleReducer.reconcile(&harness.state, plan) { harness.runner.run(effect) }
        #expect(harness.state.toasts.contains { $0.text.contains("Re-sending an unfinished extension of original transaction \(id)") })
        try await harness.settle()

        let lines = (try await harness.writes.ledger.entries())
        let ours = lines.filter { $0.account == account }
        #expect(ours.map(\.event) == [.intent, .resend, .outcome])
        #expect(ours.last?.outcome == .applied)
        #expect(lines.filter { $0.account == Self.staging }.map(\.event) == [.intent], "the other profile's write is never sent")
        #expect(harness.state.toasts.contains { $0.text.hasPrefix("Re-sent and applied to ") && $0.text.contains(": original transaction \(id)") })
    }
}
