import DemoServer
import DeskCore
import Foundation

/// Where `--demo` and `iapdesk demo` keep the demo's state, and what is said about it at start.
enum DemoStateLocation {
    /// `$XDG_STATE_HOME/iapdesk/demo` (`~/.local/state/iapdesk/demo`).
    static func path(_ loader: ConfigLoader = ConfigLoader()) -> String {
        loader.stateDirectory + "/demo"
    }

    /// Past a week, the dataset's dates show their age (notification history of the last 7 days
    /// is empty, subscriptions have expired): said once per run, with the way out.
    static let staleAfter: TimeInterval = 7 * 86_400

    /// Notes on standard error: journal lines skipped, a dataset grown old.
    static func report(_ kept: DemoKeptState?, now: Date = Date()) {
        guard let kept else { return }
        for skipped in kept.skipped {
            note("skipped line \(skipped.line) of \(kept.journalPath): \(skipped.reason); the writes before and after it are kept.")
        }
        let age = now.timeIntervalSince(kept.anchor)
        if age > staleAfter {
            note("the demo's data dates from \(DisplayFormat.day(kept.anchor)) (\(Int(age / 86_400)) days ago) and keeps the writes made since; iapdesk demo --reset rebuilds it around today.")
        }
    }

    private static func note(_ text: String) {
        StandardStreams.error("note: demo state: \(text)\n")
    }
}
