import AppStoreServerAPI
@testable import Console
@testable import DeskCore
import DeskStore
import Foundation
import Testing

/// `a` on the customer summary adds a case note, which the summary and the case file show.
@Suite struct CaseNotesTests {
    @Test func aNoteAddedWithNShowsInTheSummaryAndTheCaseFile() async throws {
        let folder = NSTemporaryDirectory() + "iapdesk-notes-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try await SQLiteNotificationStore.open(path: folder + "/store.sqlite")
        // A colleague's note, kept under the order ID from the command line.
        _ = try await store.addNote("Called on Monday about the outage", agent: "kim", at: Date(timeIntervalSince1970: 1_795_000_000), subjects: ["MK5TTTVWJH"])
        let harness = try await ConsoleHarness.start(notes: store)
        if harness.state.focus != .paneInput { harness.send(.character("i")) }
        harness.type("MK5TTTVWJH")
        harness.send(.enter)
        try await harness.settle()
        try await harness.tick(until: { $0.caseNotes.notes != nil })
        try await harness.settle()
        #expect(harness.screen(width: 120, height: 36).contains("kim: Called on Monday about the outage"))

        harness.send(.character("a"))
        #expect(harness.state.focus == .commandLine)
        #expect(harness.state.commandInput.text == "note ")
        harness.type("Extended 7 days after a second call ✓")
        harness.send(.enter)
        try await harness.settle()
        #expect(harness.state.toasts.contains { $0.text == "Noted by test." })
        try await harness.tick(until: { $0.caseNotes.notes?.count == 2 })
        try await harness.settle()
        let screen = harness.screen(width: 120, height: 36)
        #expect(screen.contains("test: Extended 7 days after a second call ✓"))
        // Kept under every ID of the customer: found again by an original transaction ID.
        #expect(try await store.notes(concerning: ["2000000400000044"]).map(\.agent) == ["test"])

        harness.send(.character(":"))
        harness.type("note   ")
        harness.send(.enter)
        #expect(harness.state.toasts.contains { $0.text.hasPrefix(":note needs an argument") }, "\(harness.state.toasts.map(\.text))")
        await harness.stop()
        try await store.close()
    }

    @Test func theCaseFileListsTheNotes() throws {
        let customer = CustomerState(query: "MK5TTTVWJH", lookup: 1)
        let file = CaseFile(
            customer: customer, environment: .production, writes: [],
            notes: [CaseNote(id: 1, time: Date(timeIntervalSince1970: 1_795_000_000), agent: "kim", text: "Called about the outage")],
            generatedAt: Date(timeIntervalSince1970: 1_795_000_100))
        #expect(file.markdown().contains("## Notes\n\n- \(DisplayFormat.date(Date(timeIntervalSince1970: 1_795_000_000))) kim: Called about the outage"))
        let json = try #require(try JSONSerialization.jsonObject(with: file.json()) as? [String: Any])
        #expect((json["notes"] as? [[String: Any]])?.first?["agent"] as? String == "kim")
    }
}
