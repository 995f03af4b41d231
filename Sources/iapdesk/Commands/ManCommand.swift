import ArgumentParser
import Foundation

/// `iapdesk man`: the man page, from the binary alone (scripts/install.sh installs this output).
struct ManCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "man",
        abstract: "Print iapdesk's man page (mdoc roff), made from the command definitions.",
        discussion: """
            The page swift-argument-parser's generate-manual plugin writes, made by the binary itself: no Swift toolchain \
            needed. Read it with: iapdesk man | man -l -   (or install it: iapdesk man > /usr/local/share/man/man1/iapdesk.1). \
            --date sets the date in its header (default today), for pages that do not change between builds.
            """)

    @Option(name: .long, help: ArgumentHelp("The page's date, YYYY-MM-DD (default today).", valueName: "date"))
    var date: String?

    func validate() throws {
        if let date, Self.day(date) == nil {
            throw ValidationError("--date \(date): give the date as YYYY-MM-DD, such as 2026-05-11.")
        }
    }

    func run() async throws {
        try await runReporting {
            print(try ManualPage.render(date: date.flatMap(Self.day) ?? Date()))
        }
    }

    static func day(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.date(from: text)
    }
}
