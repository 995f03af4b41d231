import AppStoreServerAPI
@testable import Console
import DemoServer
@testable import DeskCore
import DeskStore
import Foundation
import NotificationReconcile
import Synchronization
import TerminalUI
import Testing

/// The Live pane tails the notification store another process writes; the Notifications pane and
/// the customer summary say what of Apple's history arrived there.
@Suite(.serialized) struct LivePaneTests {
    static func temporaryStorePath() -> String {
        NSTemporaryDirectory() + "iapdesk-live-\(UUID().uuidString)/notifications.sqlite"
    }

    /// A reader of `path` as the console opens it: a store of its own, like another process's.
    static func reader(_ path: String, forward: URL? = nil, replays: ReplayLog? = nil) -> ReceivedNotifications {
        ReceivedNotifications(
            source: LiveSource(storePath: path, forwardURL: forward),
            open: { try await SQLiteNotificationStore.open(path: path, create: false) },
            replay: { _, notification, url in
                replays?.append("\(notification.notificationUUID) \(url.absoluteString)")
                replays?.sentBody(notification.rawBody)
                return ReplayOutcome(result: "HTTP 200", status: 200, milliseconds: 3)
            })
    }

    static func delivery(_ uuid: String, type: String = "DID_RENEW", originalTransactionId: String? = nil, at date: Date = Date()) -> NotificationDelivery {
        var delivery = NotificationDelivery(notificationUUID: uuid, rawBody: Data("{\"signedPayload\":\"x\"}".utf8), verdict: "verified", receivedAt: date)
        delivery.notificationType = type
        delivery.originalTransactionId = originalTransactionId
        delivery.decodedPayload = Data("{\"notificationType\":\"\(type)\",\"notificationUUID\":\"\(uuid)\"}".utf8)
        return delivery
    }

    @Test func arrivalsFromAnotherWriterShowNewestFirstAndTheSelectionStaysOnItsRow() async throws {
        let path = Self.temporaryStorePath()
        let writer = try await SQLiteNotificationStore.open(path: path)
        _ = try await writer.record(Self.delivery("00000000-0000-4000-8000-000000000001", type: "SUBSCRIBED"))
        _ = try await writer.record(Self.delivery("00000000-0000-4000-8000-000000000002", type: "DID_RENEW"))
        let harness = try await ConsoleHarness.start(received: Self.reader(path))
        defer { Task { await harness.stop(); try? await writer.close() } }
        harness.receive(.screenSize(width: 120, height: 36))
        harness.send(.escape)
        harness.send(.character(Character(String(Panes.index(of: .live) + 1))))
        #expect(harness.state.pane == .live)
        try await harness.tick { $0.live.rows.count == 2 }
        #expect(harness.state.live.rows.map(\.notificationType) == ["DID_RENEW", "SUBSCRIBED"])
        // Polls are not requests the agent made: nothing shows as in flight, Esc leaves them alone.
        #expect(harness.state.inFlight.isEmpty)
        harness.send(.down)
        #expect(PaneRows.selectedID(harness.state, .live) == "00000000-0000-4000-8000-000000000001")

        _ = try await writer.record(Self.delivery("00000000-0000-4000-8000-000000000003", type: "EXPIRED"))
        // A repeat of the first moves it up with its new count.
        _ = try await writer.record(Self.delivery("00000000-0000-4000-8000-000000000001", type: "SUBSCRIBED"))
        try await harness.tick { $0.live.rows.count == 3 && $0.live.rows.first?.deliveryCount == 2 }
        #expect(harness.state.live.rows.map(\.notificationType) == ["SUBSCRIBED", "EXPIRED", "DID_RENEW"])
        #expect(PaneRows.selectedID(harness.state, .live) == "00000000-0000-4000-8000-000000000001")
        let screen = harness.screen(width: 120, height: 36)
        #expect(screen.contains("3 arrivals"))
        #expect(screen.contains("EXPIRED"))

        // The rows are kept without their bodies; the opened one's payload is read from the store.
        #expect(harness.state.live.rows.allSatisfy { $0.rawBody.isEmpty && $0.decodedPayload == nil })
        harness.send(.enter)
        let detail = harness.screen(width: 120, height: 36)
        #expect(detail.contains("2 deliveries"))
        #expect(detail.contains("notificationUUID: 00000000-0000-4000-8000-000000000001"))
        #expect(detail.contains("Payload: reading the store…"))
        try await harness.tick { $0.live.opened?.notificationUUID == "00000000-0000-4000-8000-000000000001" }
        let payload = harness.screen(width: 120, height: 36)
        #expect(payload.contains("notificationType: SUBSCRIBED"))
        #expect(!payload.contains("reading the store"))
        // `/` finds rows by the words of the VERDICT column as shown.
        harness.state.filters[.live] = "duplicate"
        #expect(LivePane.rows(harness.state).map(\.notificationUUID) == ["00000000-0000-4000-8000-000000000001"])
    }

    /// A store that stops answering while rows are on screen (a team's server restarted): the
    /// heading says so in place of the count, the rows stay as last read, and the next read clears it.
    @Test func aStoreThatStopsAnsweringIsSaidAboveTheRowsItLeaves() async throws {
        let path = Self.temporaryStorePath()
        let writer = try await SQLiteNotificationStore.open(path: path)
        _ = try await writer.record(Self.delivery("00000000-0000-4000-8000-000000000001", type: "SUBSCRIBED"))
        let harness = try await ConsoleHarness.start(received: Self.reader(path))
        defer { Task { await harness.stop(); try? await writer.close() } }
        harness.receive(.screenSize(width: 80, height: 24))
        harness.send(.escape)
        harness.send(.character(Character(String(Panes.index(of: .live) + 1))))
        try await harness.tick { $0.live.rows.count == 1 }
        harness.state.live.problem = DisplayError(summary: "The notification store cannot be read: the server did not answer within 10 seconds.")
        let down = harness.screen(width: 80, height: 24)
        #expect(down.contains("✗ The notification store cannot be read"), "\(down)")
        #expect(down.contains("SUBSCRIBED"), "the rows stay as last read:\n\(down)")
        // The next read that works clears it.
        try await harness.tick { $0.live.problem == nil }
        #expect(harness.screen(width: 80, height: 24).contains("1 arrival"))
    }

    @Test func aStoreThatDoesNotExistYetSaysHowToMakeOneAndIsPickedUpOnceItDoes() async throws {
        let path = Self.temporaryStorePath()
        let harness = try await ConsoleHarness.start(received: Self.reader(path))
        defer { Task { await harness.stop() } }
        harness.receive(.screenSize(width: 80, height: 24))
        harness.send(.escape)
        harness.send(.character(Character(String(Panes.index(of: .live) + 1))))
        try await harness.tick { $0.live.problem != nil }
        let screen = harness.screen(width: 80, height: 24)
        #expect(screen.contains("Nothing received yet"))
        #expect(screen.contains("iapdesk listen"))

        let writer = try await SQLiteNotificationStore.open(path: path)
        defer { Task { try? await writer.close() } }
        _ = try await writer.record(Self.delivery("00000000-0000-4000-8000-0000000000aa"))
        // Arrivals elsewhere are announced when the Live pane is not on screen.
        harness.send(.character("1"))
        try await harness.tick(until: { $0.live.rows.count == 1 })
        #expect(harness.state.live.problem == nil)
        #expect(!harness.state.toasts.isEmpty || harness.state.live.loaded)
    }

    @Test func aFailedForwardSaysSoUntilARePostFromAnotherShellReachesTheApp() async throws {
        let path = Self.temporaryStorePath()
        let writer = try await SQLiteNotificationStore.open(path: path)
        let uuid = "00000000-0000-4000-8000-0000000000cc"
        let outcome = try await writer.record(Self.delivery(uuid))
        try await writer.recordForward(
            ForwardOutcome(result: "not delivered: cannot connect", status: nil, milliseconds: 3, answeredStatus: 200, elapsedMilliseconds: 4),
            delivery: outcome.deliveryId)
        _ = try await writer.record(Self.delivery("00000000-0000-4000-8000-0000000000cd"))
        let harness = try await ConsoleHarness.start(received: Self.reader(path))
        defer { Task { await harness.stop(); try? await writer.close() } }
        harness.receive(.screenSize(width: 120, height: 36))
        harness.send(.escape)
        harness.send(.character(Character(String(Panes.index(of: .live) + 1))))
        try await harness.tick { $0.live.rows.count == 2 }
        let failed = try #require(harness.state.live.rows.first { $0.notificationUUID == uuid })
        #expect(LivePane.verdict(failed, harness.state) == .forwardFailed)
        #expect(harness.screen(width: 120, height: 36).contains("fwd failed"))
        // `recover` in another shell delivers it to the app: the next read of the store says so.
        try await writer.recordReplay(ReplayAttempt(
            notificationUUID: uuid, targetURL: "http://app.example/notifications", source: .store, command: "recover", sentAt: Date(), result: "HTTP 200",
            status: 200, milliseconds: 5))
        try await harness.tick { state in state.live.rows.first { $0.notificationUUID == uuid }.map { LivePane.verdict($0, state) } == .recovered }
        let screen = harness.screen(width: 120, height: 36)
        #expect(screen.contains("recovered"))
        #expect(!screen.contains("fwd failed"))
    }

    @Test func rThenYReplaysAndOnlyToTheForwardURL() async throws {
        let path = Self.temporaryStorePath()
        let writer = try await SQLiteNotificationStore.open(path: path)
        _ = try await writer.record(Self.delivery("00000000-0000-4000-8000-0000000000bb"))
        let replays = ReplayLog()
        let forward = URL(string: "http://127.0.0.1:9/app/notifications")!
        let harness = try await ConsoleHarness.start(received: Self.reader(path, forward: forward, replays: replays))
        defer { Task { await harness.stop(); try? await writer.close() } }
        harness.receive(.screenSize(width: 120, height: 36))
        harness.send(.escape)
        harness.send(.character(Character(String(Panes.index(of: .live) + 1))))
        try await harness.tick { $0.live.rows.count == 1 }
        #expect(harness.screen(width: 120, height: 36).contains("r Replay"))

        harness.send(.character("r"))
        #expect(harness.state.live.pendingReplay != nil)
        #expect(harness.screen(width: 120, height: 36).contains("y to send it"))
        // Any other key keeps it from being sent, r again too: "err" typed into the wrong window sends nothing.
        harness.send(.escape)
        #expect(harness.state.live.pendingReplay == nil)
        for character in "err" { harness.send(.character(character)) }
        try await harness.settle()
        #expect(replays.entries.isEmpty)
        harness.send(.character("r"))
        harness.send(.character("y"))
        try await harness.settle()
        #expect(replays.entries == ["00000000-0000-4000-8000-0000000000bb \(forward.absoluteString)"])
        // The body that arrived, read again from the store: the pane keeps none.
        #expect(replays.bodies == [Data("{\"signedPayload\":\"x\"}".utf8)])
        #expect(harness.state.live.replays["00000000-0000-4000-8000-0000000000bb"]?.status == 200)
        #expect(harness.state.toasts.contains { $0.text.contains("Replayed 00000000-0000-4000-8000-0000000000bb") })
    }

    @Test func withoutAForwardURLOrOnAReadOnlyProfileNothingIsReplayed() async throws {
        let path = Self.temporaryStorePath()
        let writer = try await SQLiteNotificationStore.open(path: path)
        _ = try await writer.record(Self.delivery("00000000-0000-4000-8000-0000000000cc"))
        let replays = ReplayLog()
        let noForward = try await ConsoleHarness.start(received: Self.reader(path, replays: replays))
        let readOnly = try await ConsoleHarness.start(readOnly: true, received: Self.reader(path, forward: URL(string: "http://127.0.0.1:9/x")!, replays: replays))
        defer { Task { await noForward.stop(); await readOnly.stop(); try? await writer.close() } }
        for harness in [noForward, readOnly] {
            harness.send(.escape)
            harness.send(.character(Character(String(Panes.index(of: .live) + 1))))
            try await harness.tick { $0.live.rows.count == 1 }
            harness.send(.character("r"))
            harness.send(.character("r"))
            try await harness.settle()
        }
        #expect(replays.entries.isEmpty)
        #expect(noForward.state.lastError?.summary.contains("none is set") == true)
        #expect(readOnly.state.lastError?.summary.contains("read-only") == true)
    }

    @Test func theNotificationsPaneMarksWhatArrivedHereAndTheSummaryCountsTheCustomers() async throws {
        let path = Self.temporaryStorePath()
        let writer = try await SQLiteNotificationStore.open(path: path)
        let harness = try await ConsoleHarness.start(received: Self.reader(path))
        defer { Task { await harness.stop(); try? await writer.close() } }
        // One of Apple's last week arrived here; the others did not.
        let recent = harness.server.notificationHistory(.production).filter { entry in
            entry.attempts.first?.attemptDate.map { $0 > Date().addingTimeInterval(-6 * 86_400) } ?? false
        }
        let arrived = try #require(recent.last)
        _ = try await writer.record(Self.delivery(arrived.notificationUUID))
        harness.receive(.screenSize(width: 120, height: 36))
        harness.send(.escape)
        harness.send(.character("6"))
        try await harness.settle()
        try await harness.tick { $0.receivedHere.arrivals != nil }
        #expect(harness.state.receivedHere.arrivals?.keys.sorted() == [arrived.notificationUUID])
        let screen = harness.screen(width: 120, height: 36)
        #expect(screen.contains("VERDICT"))
        // Each row has reconcile's verdict: the one that arrived is no gap, the others are.
        let verdicts = harness.state.receivedHere.verdicts
        #expect(verdicts[arrived.notificationUUID.lowercased()]?.isGap == false)
        #expect(recent.dropLast().allSatisfy { verdicts[$0.notificationUUID.lowercased()]?.isGap == true })
        #expect(screen.contains("missing") || screen.contains("undelivered"))
        let rows = NotificationsPane.rows(harness.state)
        let index = try #require(rows.firstIndex { $0.payload?.notificationUUID == arrived.notificationUUID })
        var list = harness.state.list(.notifications)
        list.selected = index == 0 ? 1 : 0
        harness.state.lists[.notifications] = list
        harness.send(.enter)
        #expect(harness.screen(width: 120, height: 36).contains("Arrived here: no"))
        harness.send(.escape)
        list.selected = index
        harness.state.lists[.notifications] = list
        harness.send(.enter)
        #expect(harness.screen(width: 120, height: 36).contains("answered HTTP 200"))
        #expect(harness.screen(width: 120, height: 36).contains("Verdict:"))

        // The customer summary counts what arrived about this customer's purchases.
        let alice = try #require(harness.server.seedIDs(.production).customers.first { $0.scenario == "Active monthly subscription" })
        _ = try await writer.record(Self.delivery("00000000-0000-4000-8000-0000000000dd", originalTransactionId: alice.originalTransactionId))
        _ = try await writer.record(Self.delivery("00000000-0000-4000-8000-0000000000ee", originalTransactionId: alice.originalTransactionId))
        harness.send(.escape)
        harness.send(.character("i"))
        harness.type(alice.originalTransactionId)
        harness.send(.enter)
        try await harness.settle()
        try await harness.tick { $0.receivedHere.customerCount == 2 }
        var summary = harness.state
        summary.screenHeight = 60
        harness.state = summary
        #expect(harness.screen(width: 120, height: 60).contains("2 notifications received here"))
    }
}

/// The replays a test's console asked for.
final class ReplayLog: Sendable {
    private let storage = Mutex<[String]>([])
    private let sent = Mutex<[Data]>([])
    func append(_ entry: String) { storage.withLock { $0.append(entry) } }
    func sentBody(_ body: Data) { sent.withLock { $0.append(body) } }
    var entries: [String] { storage.withLock { $0 } }
    var bodies: [Data] { sent.withLock { $0 } }
}
