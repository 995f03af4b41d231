import DeskCore
import Foundation
import NotificationReconcile
import WebhookReceiver

/// Says an incident opened or resolved: to `--exec` (the event as JSON on standard input) and to
/// `--alert-url` (Slack-compatible text or a PagerDuty event). An announcement that fails on any
/// channel is tried again at the next cycle.
struct IncidentAnnouncer: Sendable {
    let exec: String?
    let alertURL: URL?
    let format: AlertFormat
    /// PagerDuty's integration key, from the environment only (a flag would show in `ps`).
    let routingKey: String?
    /// How long the command or the POST may take.
    let timeout: TimeInterval

    static let routingKeyVariable = "IAPDESK_PAGERDUTY_ROUTING_KEY"

    var hasChannels: Bool { exec != nil || alertURL != nil }

    /// Where alerts go, without the secrets an incoming-webhook URL carries in its path.
    var shownAlertURL: String? { alertURL.map(Self.shown) }

    static func shown(_ url: URL) -> String { "\(url.scheme ?? "https")://\(url.host ?? "?")\(url.port.map { ":\($0)" } ?? "")/…" }

    /// nil when every channel took it, else why one did not.
    func announce(_ event: IncidentEvent) async -> String? {
        var failures: [String] = []
        if let exec, let failure = await run(exec, event: event) { failures.append(failure) }
        if let alertURL, let failure = await post(event, to: alertURL) { failures.append(failure) }
        return failures.isEmpty ? nil : failures.joined(separator: "; ")
    }

    private func post(_ event: IncidentEvent, to url: URL) async -> String? {
        let forwarder = Forwarder(ForwardConfiguration(url: url, timeout: timeout))
        let body = format.body(event, routingKey: routingKey)
        let result = await forwarder.post(body, headers: ["User-Agent": "iapdesk watch"])
        if let status = result.status, (200...299).contains(status) { return nil }
        // The forwarder's summary names the URL's host only.
        return "alert to \(Self.shown(url)) failed: \(result.summary)"
    }

    /// Runs the command with `sh -c`, the event on standard input; it must exit 0 within the timeout.
    private func run(_ command: String, event: IncidentEvent) async -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        var environment = ProcessInfo.processInfo.environment
        environment["IAPDESK_INCIDENT_EVENT"] = event.event
        environment["IAPDESK_INCIDENT_KEY"] = event.key
        process.environment = environment
        let input = Pipe()
        process.standardInput = input
        let exited = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { exited.continuation.yield($0.terminationStatus); exited.continuation.finish() }
        do {
            try process.run()
        } catch {
            return "--exec could not start: \(error.localizedDescription)"
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = ((try? encoder.encode(event)) ?? Data()) + Data([0x0A])
        // A command that does not read its input must not block the watch: written on a thread of its own.
        let handle = input.fileHandleForWriting
        DispatchQueue.global().async {
            try? handle.write(contentsOf: json)
            try? handle.close()
        }
        let stoppedByTimer = OnceFlag()
        let timer = Task {
            try await Task.sleep(for: .seconds(timeout))
            if stoppedByTimer.claim() { process.terminate() }
        }
        var status: Int32 = -1
        for await value in exited.stream { status = value }
        timer.cancel()
        // Claimed here first, the timer did not stop it.
        let timedOut = !stoppedByTimer.claim()
        if status == 0 && process.terminationReason == .exit { return nil }
        if timedOut { return "--exec did not finish within \(Int(timeout)) s: stopped" }
        return process.terminationReason == .exit ? "--exec exited \(status)" : "--exec was killed by signal \(status)"
    }
}
