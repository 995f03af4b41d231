import AppStoreServerAPI
import DeskCore
import Foundation

/// Opens a session, runs the body under one deadline for everything it sends (retries and waits
/// included; `extraTime` adds a wait the command does on purpose), closes the session, and reports
/// failures with their exit code.
func withSession(_ options: GlobalOptions, extraTime: TimeInterval = 0, _ body: (Session, Printer) async throws -> Void) async throws {
    try await runReporting {
        let session = try await Session.open(options)
        do {
            try await Deadline.$current.withValue(Deadline(seconds: session.timeout + extraTime)) {
                try await body(session, Printer(json: options.json))
            }
            await session.close()
        } catch {
            await session.close()
            throw error
        }
    }
}

/// Asks before a write: shows the exact request; on a terminal waits for "yes", elsewhere needs --yes.
func confirmWrite(_ description: String, yes: Bool, session: Session) throws {
    try session.requireWritable()
    if yes { return }
    guard TerminalInfo.inputIsInteractive else {
        throw CLIError("Not sent: this changes data and standard input is not a terminal.", hint: "Add --yes to send without asking.", status: .refused)
    }
    StandardStreams.error("\(description)\nSend to \(session.environmentLabel)? Type yes to send: ")
    guard let answer = readLine(), answer.trimmingCharacters(in: .whitespaces).lowercased() == "yes" else {
        throw CLIError("Not sent.", hint: "Only the whole word yes sends it (or --yes on the command line).", status: .refused)
    }
}

/// Dates typed on the command line: `2026-11-01`, `2026-11-01T10:00:00Z`, `7d`, `24h`, `30m`, or epoch milliseconds.
enum DateArgument {
    static func parse(_ text: String, now: Date = Date()) -> Date? {
        if let span = TimeSpan.seconds(text) { return now.addingTimeInterval(-span) }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.count >= 12, let ms = Int64(trimmed) { return Date(epochMilliseconds: ms) }
        let full = ISO8601DateFormatter()
        if let date = full.date(from: trimmed) { return date }
        let day = DateFormatter()
        day.locale = Locale(identifier: "en_US_POSIX")
        day.timeZone = TimeZone(identifier: "UTC")
        day.dateFormat = "yyyy-MM-dd"
        return day.date(from: trimmed)
    }

    static func require(_ text: String, _ option: String, now: Date = Date()) throws -> Date {
        guard let date = parse(text, now: now) else {
            throw CLIError("\(option) \(text) is not a date.", hint: "Use 2026-11-01, 2026-11-01T10:00:00Z, 7d, 24h or 30m.", status: .usage)
        }
        return date
    }
}
