import AppStoreServerAPI
import DeskCore
import Foundation

/// A test notification's delivery attempts, with what each means: `test-notification-status`,
/// and `test-notification --wait` once the result is known. Not delivered is exit 5.
enum TestNotificationReport {
    static func show(_ status: CheckTestNotificationResponse, token: String, session: Session, printer: Printer) async throws {
        let attempts = status.sendAttempts ?? []
        let decoded = await status.signedPayload.asyncMap { await session.verification.notification($0) } ?? nil
        printer.emit(TestNotificationOutput(
            testNotificationToken: token, delivered: attempts.contains { $0.sendAttemptResult == .success },
            verification: decoded.map { VerificationRecord($0.notification.status, checks: $0.notification.checks) },
            signedPayload: status.signedPayload, sendAttempts: attempts.map(AttemptRecord.init)))
        var table = TextTable("ATTEMPT", "RESULT", "WHAT IT MEANS")
        for attempt in attempts {
            table.add(DisplayFormat.date(attempt.attemptDate, seconds: true), attempt.sendAttemptResult?.rawValue ?? "?", attempt.sendAttemptResult?.hint ?? "")
        }
        printer.text(table.render())
        if let decoded { printer.text("\nPayload: \(decoded.notification.verdict)") }
        if !attempts.contains(where: { $0.sendAttemptResult == .success }) {
            throw CLIError("The test notification was not delivered.", hint: attempts.last?.sendAttemptResult?.hint, status: .unavailable)
        }
    }
}

/// `test-notification-status --json` (and `test-notification --wait --json` once the result is known).
struct TestNotificationOutput: Encodable {
    var testNotificationToken: String
    var delivered: Bool
    var verification: VerificationRecord?
    var signedPayload: String?
    var sendAttempts: [AttemptRecord]
}
