import AppStoreServerAPI
import DemoServer
import DeskStore
import Foundation
import WebhookReceiver

#if canImport(Glibc)
import Glibc
#endif

/// What the console holds in memory, driven on a pseudo-terminal as a user drives it: `iapdesk demo`
/// (console and embedded server in one process) with the 517-transaction customer opened in every
/// pane, and the console reading a store that holds `consoleNotifications` notifications. Each run
/// waits for every step to be drawn before the next key, then reads the process's resident memory
/// from /proc for `steadySeconds`.
extension WebhookBench {
    /// The memory the console may hold (issue 26's budget), the demo server included.
    static let consoleMemoryLimitMB = 64.0

    /// A key (or keys) and the text whose drawing shows it was handled.
    struct ConsoleStep {
        var keys: String
        var drawn: String
    }

    /// From the first frame to the last pane: the customer looked up, then panes 2 to 0. The Inspector
    /// keeps its paste field focused, so Tab (its field's "next pane") moves on from it.
    static let everyPaneSteps = [
        ConsoleStep(keys: "", drawn: "Order, transaction or account ID:"),
        // Every part of the summary in: the order, statuses, 517 transactions with the app transaction.
        ConsoleStep(keys: "LAHP48FCVE\r", drawn: "all 520 signatures verified"),
        ConsoleStep(keys: "2", drawn: "Order LAHP48FCVE: valid"),
        ConsoleStep(keys: "3", drawn: "No refunds for this customer."),
        ConsoleStep(keys: "4", drawn: "RENEWS/ENDS"),
        ConsoleStep(keys: "5", drawn: "517 transactions · sort"),
        ConsoleStep(keys: "6", drawn: "notifications · last"),
        ConsoleStep(keys: "7", drawn: "Paste an App Store JWS"),
        ConsoleStep(keys: "\t", drawn: "arrivals · receiving at"),
        ConsoleStep(keys: "9", drawn: "Spent: net"),
        ConsoleStep(keys: "0", drawn: "requests in 30 days"),
        ConsoleStep(keys: "1", drawn: "all 520 signatures verified"),
    ]

    /// The Live pane (it keeps the newest 2,000) and Apple's history with its "received here" marks.
    static func storeSteps(kept: Int) -> [ConsoleStep] {
        [
            ConsoleStep(keys: "", drawn: "Order, transaction or account ID:"),
            // Out of the ID field first: a digit typed in it would be part of an ID.
            ConsoleStep(keys: "\u{1b}", drawn: "q Quit"),
            ConsoleStep(keys: "8", drawn: "\(kept) arrivals · receiving at"),
            ConsoleStep(keys: "6", drawn: "notifications · last"),
            ConsoleStep(keys: "8", drawn: "\(kept) arrivals · receiving at"),
        ]
    }

    func measureConsoleMemory(_ folder: String) async throws {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("iapdesk").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            print("# console memory figures: build iapdesk beside this bench first (swift build --product iapdesk).")
            return
        }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try runConsole(binary, name: "demo_every_pane", ["demo"], steps: Self.everyPaneSteps, folder: folder + "/demo",
                       what: "iapdesk demo at 120x36, LAHP48FCVE (517 transactions) opened in every pane")

        let store = folder + "/console.sqlite"
        try await fillStore(store, count: consoleNotifications)
        try runConsole(binary, name: "console_stored_notifications", ["demo", "--store", store], steps: Self.storeSteps(kept: min(2_000, consoleNotifications)),
                       folder: folder + "/store",
                       what: "iapdesk demo --store at 120x36 reading a store of \(consoleNotifications) notifications: Live pane, Notifications pane")
    }

    /// `count` notifications as `listen` stores them: demo-signed bodies received, verified and stored
    /// by the receiver in this process.
    func fillStore(_ path: String, count: Int) async throws {
        let demo = try await DemoServer.start()
        let store = try await SQLiteNotificationStore.open(path: path)
        var configuration = NotificationReceiver.Configuration()
        configuration.port = 0
        let receiver = try await NotificationReceiver.start(configuration, verifier: try demo.makeVerifier(), store: store)
        let bodies = try Self.bodies(count, demo: demo)
        let (_, _, failures) = try await Self.send(bodies, to: receiver.url, transport: AsyncHTTPClientTransport(connectionsPerHost: concurrency),
                                                   concurrency: concurrency)
        await receiver.stop()
        try await store.close()
        await demo.stop()
        if failures > 0 { throw PseudoTerminal.Failure(description: "\(failures) of \(count) notifications were not stored") }
    }

    /// Runs the console through `steps`, then reads its memory for `steadySeconds`; prints the peak
    /// (VmHWM) and the steady figure (median VmRSS over that time), each beside the budget.
    func runConsole(_ binary: String, name: String, _ arguments: [String], steps: [ConsoleStep], folder: String, what: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["TERM"] = "xterm-256color"
        environment["LANG"] = "C.UTF-8"
        environment["XDG_STATE_HOME"] = folder + "/state"
        environment["XDG_CONFIG_HOME"] = folder + "/config"
        environment["XDG_DATA_HOME"] = folder + "/data"
        environment["SWIFT_BACKTRACE"] = "enable=no"
        let terminal = try PseudoTerminal(binary, arguments, columns: 120, rows: 36, environment: environment, log: folder + "/stderr.log")
        defer { terminal.stop() }
        let pid = terminal.pid
        let clock = ContinuousClock()
        let started = clock.now
        for step in steps {
            terminal.type(step.keys)
            do {
                try terminal.waitFor(step.drawn)
            } catch {
                throw PseudoTerminal.Failure(description: "\(name): \(error); the screen:\n\(terminal.screen.text)")
            }
            let shown = step.keys.isEmpty ? "start" : step.keys.replacingOccurrences(of: "\r", with: "⏎").replacingOccurrences(of: "\t", with: "Tab")
                .replacingOccurrences(of: "\u{1b}", with: "Esc")
            print(String(format: "# %@ %.1f s: %@ drawn, %.1f MB resident", name, Self.seconds(clock.now - started), shown,
                         Self.procStatus(pid, "VmRSS") ?? 0))
        }
        var samples: [Double] = []
        let end = clock.now + .seconds(steadySeconds)
        while clock.now < end {
            if let rss = Self.procStatus(pid, "VmRSS") { samples.append(rss) }
            Thread.sleep(forTimeInterval: 1)
        }
        guard let peak = Self.procStatus(pid, "VmHWM"), !samples.isEmpty else {
            throw PseudoTerminal.Failure(description: "\(name): the console ended during the run (its errors: \(folder)/stderr.log)")
        }
        let steady = Self.percentile(samples, 0.5)
        // What the resident memory is: code and data of the binary and its libraries, or the heap and stacks.
        let anonymous = Self.procStatus(pid, "RssAnon") ?? 0
        let files = Self.procStatus(pid, "RssFile") ?? 0
        let limit = Self.consoleMemoryLimitMB
        Self.figure("\(name)_peak_rss", peak, "MB (limit \(Int(limit)) MB, ratio \(String(format: "%.2f", peak / limit)); \(what))")
        Self.figure(
            "\(name)_steady_rss", steady,
            "MB (limit \(Int(limit)) MB, ratio \(String(format: "%.2f", steady / limit)); median of \(samples.count) readings over \(Int(steadySeconds)) s after the last step, \(String(format: "%.1f", samples.min() ?? 0)) to \(String(format: "%.1f", samples.max() ?? 0)) MB; at the end \(String(format: "%.1f", anonymous)) MB anonymous (heap, stacks), \(String(format: "%.1f", files)) MB of files (the binary, its libraries))")
    }
}
