import AppStoreServerAPI
import ArgumentParser
import DeskCore
import DeskStore
import Foundation
import HTTPServing
import Logging
import NotificationReconcile

struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Reconcile every few minutes and alert when notifications go missing, fail or stop arriving.",
        discussion: """
            A long-lived process for on-call. Every --interval it reads Apple's notification history for the last --window, \
            joins it with the store (as reconcile does) and reads the store's refused bodies and last arrival. Findings, one \
            incident each per environment: Apple's failed sends (not delivered, not here), notifications missing here (Apple \
            says delivered), forwards to the app that failed, notifications unknown to Apple, history entries that cannot be \
            read, refused bodies in the window, no arrival for --quiet-after, and the watch being unable to check. An incident \
            is announced once when it opens and once when it resolves: a line on standard output (JSON lines with --json), \
            --exec CMD with the incident as JSON on standard input, --alert-url with a Slack-compatible message or a PagerDuty \
            Events API v2 event (--alert-format pagerduty; the routing key from \(IncidentAnnouncer.routingKeyVariable)). \
            Incidents are kept in the store: a restart neither repeats nor forgets one, and an announcement that failed is \
            tried again next cycle. --recover-to re-posts what did not reach the app, at a bounded rate, before findings \
            are made: what it delivers is "recovered" and raises nothing. Ctrl-C or SIGTERM ends the cycle in flight and \
            exits 0. --consumption-policy answers the store's refund requests as listen does. --once runs one cycle for cron: exit 0 when no incident is open, 10 when one is, the usual codes when \
            Apple or the store cannot be read. See docs/on-call.md.
            """)

    @Option(name: .long, help: ArgumentHelp("Time between cycles (30s, 5m, 1h).", valueName: "span")) var interval: String = "5m"
    @Option(name: .long, help: ArgumentHelp("How far back each cycle reconciles (24h, 3d; within what Apple keeps).", valueName: "span"))
    var window: String = "24h"
    @Option(name: .long, help: ArgumentHelp("An incident when nothing arrived in the store for this long (30m, 2h).", valueName: "span"))
    var quietAfter: String?
    @Flag(name: .long, help: "Run one cycle, announce, and exit: 0 when no incident is open, 10 when one is.") var once = false
    @Option(name: .long, help: ArgumentHelp("Run this shell command for each incident change, the incident as JSON on its standard input.", valueName: "command"))
    var exec: String?
    @Option(name: .long, help: ArgumentHelp("POST each incident change here (a Slack incoming webhook, PagerDuty's events URL, ...).", valueName: "url"))
    var alertURL: String?
    @Option(name: .long, help: "slack (a {\"text\": ...} message) or pagerduty (Events API v2).") var alertFormat: String = "slack"
    @Option(name: .long, help: ArgumentHelp("Seconds --exec or an alert POST may take.", valueName: "seconds")) var alertTimeout: Double = 15
    @Option(name: .long, help: ArgumentHelp("Re-post what did not reach the app to this URL (the app's endpoint) each cycle.", valueName: "url"))
    var recoverTo: String?
    @Option(name: .long, help: ArgumentHelp("At most this many re-posts a second.", valueName: "N")) var recoverRate: Double = 2
    @Option(name: .long, help: ArgumentHelp(
        "Also answer each refund request (CONSUMPTION_REQUEST) in the store with this consumption policy, as listen does (docs/refunds.md).", valueName: "file"))
    var consumptionPolicy: String?
    @Option(name: .long, help: ArgumentHelp("Serve /metrics (Prometheus text) and /healthz on this address (plain HTTP).", valueName: "host:port"))
    var metricsAddress: String?
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard let interval = Self.span(interval), interval >= 10 else { throw ValidationError("--interval must be a span of at least 10 seconds, such as 30s, 5m or 1h.") }
        guard let window = Self.span(window), window >= 60 else { throw ValidationError("--window must be a span of at least a minute, such as 24h or 3d.") }
        if let quietAfter, (Self.span(quietAfter) ?? 0) < 60 { throw ValidationError("--quiet-after must be a span of at least a minute, such as 30m.") }
        guard AlertFormat(rawValue: alertFormat) != nil else { throw ValidationError("--alert-format must be slack or pagerduty.") }
        if let alertURL {
            guard let url = URL(string: alertURL), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false else {
                throw ValidationError("--alert-url must be an http(s) URL.")
            }
        }
        if alertFormat == AlertFormat.pagerduty.rawValue {
            guard alertURL != nil else { throw ValidationError("--alert-format pagerduty needs --alert-url https://events.pagerduty.com/v2/enqueue.") }
            guard Self.routingKey != nil else {
                throw ValidationError("--alert-format pagerduty needs the integration's routing key in \(IncidentAnnouncer.routingKeyVariable).")
            }
        }
        guard alertTimeout.isFinite, alertTimeout > 0, alertTimeout <= 300 else { throw ValidationError("--alert-timeout must be more than 0 and at most 300 seconds.") }
        guard recoverRate.isFinite, recoverRate > 0, recoverRate <= 100 else { throw ValidationError("--recover-rate must be more than 0 and at most 100 a second.") }
        if let recoverTo {
            guard let url = URL(string: recoverTo), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false else {
                throw ValidationError("--recover-to must be an http(s) URL: the app's endpoint, such as https://example.com/appstore/notifications.")
            }
        }
        if let metricsAddress, (try? ListenAddress.split(metricsAddress)) == nil {
            throw ValidationError("--metrics-address must be host:port, such as 127.0.0.1:9091 or [::1]:9091.")
        }
    }

    /// A span as `TimeSpan` reads it, or seconds (`30s`).
    static func span(_ text: String) -> TimeInterval? {
        if text.hasSuffix("s"), let seconds = Double(text.dropLast()), seconds.isFinite, seconds >= 0 { return seconds }
        return TimeSpan.seconds(text)
    }

    static var routingKey: String? { ProcessInfo.processInfo.environment[IncidentAnnouncer.routingKeyVariable].flatMap { $0.isEmpty ? nil : $0 } }

    func run() async throws {
        try await runReporting {
            let session = try await Session.open(global)
            do {
                try await watch(session)
                await session.close()
            } catch {
                await session.close()
                throw error
            }
        }
    }

    private func watch(_ session: Session) async throws {
        let output = WatchOutput(json: global.json)
        let policy = try consumptionPolicy.map(ReceivingPolicy.load)
        let resolved = try await StoreAccess.resolve(storeOptions, session: session)
        // A store no receiver has written is a typo or the wrong profile: every notification of
        // Apple's would read as missing, so it is refused as reconcile refuses it.
        let opened = try await StoreAccess.openExisting(resolved.location)
        guard let store = opened as? any NotificationStore & IncidentStore else {
            try? await opened.close()
            throw CLIError("The store at \(resolved.location.description) cannot keep incidents.", status: .configuration)
        }
        var settings = WatchCycle.Settings(window: Self.span(window) ?? 86_400, quietAfter: quietAfter.flatMap(Self.span))
        settings.sinceText = window
        settings.followUpFlags = global.followUpFlags + (storeOptions.store.map { " --store \(GlobalOptions.quoted($0))" } ?? "")
        let kept = session.environment.notificationHistoryRetention
        if settings.window > kept {
            output.note(
                "note: Apple keeps \(session.environment.notificationHistoryRetentionDays) days of notification history in \(session.environment.label): each cycle reads those, not \(window).")
            settings.window = kept
        }
        if let recoverTo {
            settings.recoverTo = ReplaySender(target: try ReplaySender.target(recoverTo), command: "watch", timeout: 10, store: store)
            settings.recoverRate = recoverRate
        }
        let intervalSeconds = Self.span(interval) ?? 300
        // Re-posts leave time for the rest of the cycle.
        settings.recoverBudget = .seconds(max(5, intervalSeconds / 2))
        let announcer = IncidentAnnouncer(
            exec: exec, alertURL: alertURL.flatMap(URL.init(string:)), format: AlertFormat(rawValue: alertFormat) ?? .slack,
            routingKey: Self.routingKey, timeout: alertTimeout)
        let cycle = WatchCycle(session: session, store: store, settings: settings, announcer: announcer, source: ProcessInfo.processInfo.hostName)
        // Refund requests the receiver stored are answered here too (the store's claims keep it to once,
        // whichever process answers), every minute, or once with --once.
        var responder: PolicyResponder?
        if let policy {
            do {
                responder = try await ReceivingPolicy.responder(policy, session: session, store: store, storeFlag: storeOptions.store, log: PolicyLog(json: global.json))
            } catch {
                try? await store.close()
                throw error
            }
        }
        output.banner(
            environment: session.environmentLabel, store: resolved.recordedIn, interval: interval, window: window, quietAfter: quietAfter,
            channels: announcer.channels.map(\.shown),
            recoverTo: settings.recoverTo?.shownTarget, once: once)
        // Stale when two cycles in a row could not check (or never did), with the time one may take.
        let metrics = WatchMetrics(
            environment: cycle.environment, staleAfter: .seconds(2 * intervalSeconds + session.timeout + settings.recoverBudget.components.seconds.asDouble))
        var listener: PrivateListener?
        if let metricsAddress {
            let (host, port) = try ListenAddress.split(metricsAddress)
            do {
                listener = try await PrivateListener.start(host: host, port: port, logger: .quiet("iapdesk-watch-metrics")) { metrics.answer($0) }
            } catch {
                try? await store.close()
                throw CLIError("--metrics-address: \(error)", hint: "Choose another address (port 0 picks a free one).", status: .configuration)
            }
            output.note("Metrics at http://\(host.contains(":") ? "[\(host)]" : host):\(listener?.port ?? port)/metrics, health at /healthz.")
        }
        if let responder {
            output.note(ReceivingPolicy.banner(responder.policy, ledger: responder.ledgerLocation, when: once ? "in the store now" : "in the store within a minute"))
            if once {
                await responder.sweep()
                await responder.idle()
            } else {
                responder.start()
            }
        }
        // Armed before the first cycle, so a stop that comes during it drains it.
        let shutdown = ShutdownSignal.armed()
        let loop = Task { () -> WatchCycle.Outcome? in
            var last: WatchCycle.Outcome?
            let clock = ContinuousClock()
            while !Task.isCancelled {
                let started = clock.now
                do {
                    let outcome = try await cycle.run()
                    metrics.record(outcome, took: clock.now - started)
                    output.cycle(outcome, environment: cycle.environment)
                    last = outcome
                } catch is CancellationError {
                    break
                } catch {
                    // The store could not keep the incidents: said, and tried again next cycle.
                    output.failure("the incidents could not be kept in \(resolved.recordedIn): \(WatchCycle.reason(error))")
                    if once { throw StoreAccess.failure(error, path: resolved.recordedIn) }
                }
                if once { break }
                do { try await clock.sleep(until: started + .milliseconds(Int64(intervalSeconds * 1000))) } catch { break }
            }
            return last
        }
        let stopper = Task {
            for await _ in shutdown { loop.cancel() }
        }
        let last: WatchCycle.Outcome?
        do {
            last = try await loop.value
            stopper.cancel()
        } catch {
            stopper.cancel()
            await responder?.stop()
            await listener?.stop()
            try? await store.close()
            throw error
        }
        await responder?.stop()
        await listener?.stop()
        try? await store.close()
        guard once else {
            output.note("Stopped. \(last.map { WatchOutput.openWords($0.open) } ?? "No cycle finished.")")
            return
        }
        guard let last else { throw CLIError("Interrupted before the cycle finished.", status: .interrupted) }
        if let failure = last.failure { throw failure }
        if !last.open.isEmpty {
            throw CLIError(WatchOutput.openWords(last.open), hint: "iapdesk reconcile shows each notification; docs/on-call.md has the runbook.", status: .gapsFound)
        }
    }
}

extension Int64 {
    fileprivate var asDouble: Double { Double(self) }
}

extension Logger {
    /// A logger that says only what is critical: the command prints its own lines.
    fileprivate static func quiet(_ label: String) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = .critical
        return logger
    }
}
