import AppStoreServerAPI
import Foundation
@testable import iapdesk
import Testing

/// The window `reconcile` and `recover` read, and how re-post targets are shown.
@Suite struct ReconcileOptionsTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aWindowOlderThanAppleKeepsIsMovedUpAndSaidSo() throws {
        let window = try NotificationHistoryWindow.make(since: "400d", until: nil, environment: .production, now: now)
        #expect(window.range.upperBound == now)
        #expect(abs(window.range.lowerBound.timeIntervalSince(now.addingTimeInterval(-180 * 86_400 + 60))) < 1)
        #expect(window.clampNote?.contains("Apple keeps 180 days of notification history in Production") == true)
        let sandbox = try NotificationHistoryWindow.make(since: "40d", until: nil, environment: .sandbox, now: now)
        #expect(sandbox.clampNote?.contains("30 days") == true)
        let inside = try NotificationHistoryWindow.make(since: "7d", until: nil, environment: .production, now: now)
        #expect(inside.clampNote == nil)
        #expect(inside.range.lowerBound == now.addingTimeInterval(-7 * 86_400))
    }

    @Test func badWindowsAreUsageErrors() {
        for (since, until) in [("1d", "2d"), ("soon", nil), ("7d", "later"), ("400d", "300d")] as [(String, String?)] {
            do {
                _ = try NotificationHistoryWindow.make(since: since, until: until, environment: .production, now: now)
                Issue.record("\(since) to \(until ?? "now") was accepted")
            } catch let error as CLIError {
                #expect(error.status == .usage, "\(error.message)")
            } catch {
                Issue.record("\(error)")
            }
        }
    }

    @Test func targetsAreShownWithoutCredentialsOrQueryValues() throws {
        let url = try ReplaySender.target("https://user:secret@app.example.com:8443/hook?token=abc&x")
        let shown = ReplaySender.redacted(url)
        #expect(!shown.contains("secret"))
        #expect(!shown.contains("abc"))
        #expect(shown.hasPrefix("https://app.example.com:8443/hook?token="))
        #expect(throws: CLIError.self) { try ReplaySender.target("ftp://example.com/x") }
        #expect(throws: CLIError.self) { try ReplaySender.target("http:///nohost") }
    }
}
