import AppStoreServerAPI
import ArgumentParser
import DeskCore
import DeskStore
import Foundation
import Synchronization
import WebhookReceiver

/// The notification store's location, shared by every command that reads or writes it.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The store: a file, or a team's postgres:// URL (default: IAPDESK_STORE, then the profile's store, then $XDG_DATA_HOME/iapdesk/notifications.sqlite).",
        valueName: "path|url"))
    var store: String?

    func validate() throws {
        if let store {
            do { _ = try StoreLocation(parsing: store) } catch { throw ValidationError("--store: \(error.description).") }
        }
    }

    /// The store named by --store, IAPDESK_STORE or IAPDESK_STORE_PATH; nil when none is.
    var named: String? { store ?? Self.namedByEnvironment }

    /// IAPDESK_STORE, else IAPDESK_STORE_PATH.
    static var namedByEnvironment: String? {
        let environment = ProcessInfo.processInfo.environment
        return environment["IAPDESK_STORE"].flatMap { $0.isEmpty ? nil : $0 } ?? environment["IAPDESK_STORE_PATH"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Where the store is: the one named, else the profile's `store`, else the default file.
    func location(profileStore: String?) throws -> StoreLocation {
        try Self.location(flag: store, profileStore: profileStore)
    }

    /// The same for commands without --store (writes, whose ledger is in the store).
    static func location(flag: String?, profileStore: String?) throws -> StoreLocation {
        guard let text = flag ?? namedByEnvironment ?? profileStore else { return .file(path: SQLiteNotificationStore.defaultPath()) }
        do {
            return try StoreLocation(parsing: text)
        } catch {
            let source = flag != nil ? "--store" : (namedByEnvironment != nil ? "IAPDESK_STORE" : "the profile's store")
            throw CLIError("\(source): \(error.description).", status: .usage)
        }
    }

    /// The store of the profile a command without the other profile options names (`received
    /// --profile`); without one, the config file's default profile's, when it can be read. A
    /// profile named but not found is an error, as for every other command.
    static func configuredStore(profile name: String? = nil) throws -> String? {
        let loader = ConfigLoader()
        guard let name else {
            guard let file = try? loader.loadFile(), let profile = try? loader.resolve(file: file, name: nil, flags: ProfileOverrides()) else {
                return nil
            }
            return profile.store
        }
        return try loader.resolve(file: try loader.loadFile(), name: name, flags: ProfileOverrides()).store
    }
}

struct ListenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen",
        abstract: "Receive App Store Server Notifications: verify, store, then answer 200.",
        discussion: """
            An HTTP receiver for App Store Server Notifications V2. Each POST {"signedPayload": ...} is verified with the \
            profile's verifier (certificate chain, bundle ID, app Apple ID, environment, and every signed payload nested in it), \
            stored, and only then answered 200, so Apple retries whatever was not stored. Repeated deliveries of one \
            notificationUUID are stored once and counted. A body that is not JSON, has no signedPayload, is larger than 1 MiB \
            or does not verify is answered 400 with the reason and kept in quarantine; when the store cannot be written the \
            answer is 503. One line per arrival on standard output (JSON lines with --json). Ctrl-C or SIGTERM stops \
            accepting, lets requests in flight finish and exits 0. See docs/webhooks.md.

            With --demo the receiver trusts the embedded demo server's chain and that server sends its notifications here: \
            `iapdesk listen --demo --send-test` shows one arriving.
            """)

    @Option(name: .long, help: ArgumentHelp("Address to listen on (port 0: a free one).", valueName: "host:port"))
    var address: String = "127.0.0.1:8080"
    @Option(name: .long, help: "The path notifications are POSTed to.") var path: String = "/appstore/notifications"
    @Option(name: .long, help: ArgumentHelp("Serve HTTPS with this certificate chain (PEM; needs --tls-key).", valueName: "pem")) var tlsCert: String?
    @Option(name: .long, help: ArgumentHelp("The private key of --tls-cert (PEM).", valueName: "pem")) var tlsKey: String?
    @OptionGroup var storeOptions: StoreOptions
    @Option(name: .long, help: ArgumentHelp("After storing, POST each notification's body as it arrived to this URL (the app's own endpoint).", valueName: "url"))
    var forwardTo: String?
    @Option(name: .long, help: ArgumentHelp("Seconds the forward may take.", valueName: "seconds")) var forwardTimeout: Double = 10
    @Flag(name: .long, help: "Answer with the forward's status (502 unreachable, 504 timed out) instead of 200, so the sender retries what the app's endpoint did not take.")
    var mirrorStatus = false
    @Option(name: .long, help: "Requests handled at once; the others wait.") var maxConcurrent: Int = 64
    @Option(name: .long, help: ArgumentHelp("Seconds a request's body may take to arrive.", valueName: "seconds")) var readTimeout: Double = 10
    @Option(name: .long, help: ArgumentHelp("Seconds a stop waits for requests in flight.", valueName: "seconds")) var drainTimeout: Double = 10
    @Option(name: .long, help: ArgumentHelp("Seconds a write to the store may take before the request is answered 503.", valueName: "seconds"))
    var storeDeadline: Double = 3
    @Option(name: .long, help: ArgumentHelp("Largest body read (bytes; K, M suffixes); a larger one is refused after its first 64 KiB.", valueName: "size"))
    var maxBody: String = "1M"
    @Option(name: .long, help: ArgumentHelp("Connections one peer address may have open at once (0: no limit).", valueName: "n"))
    var maxConnectionsPerPeer: Int = 32
    @Option(name: .long, help: ArgumentHelp("Requests a second one peer address may make, in bursts of twice that; beyond it 429 (0: no limit).", valueName: "n"))
    var maxRatePerPeer: Double = 0
    @Option(name: .long, help: ArgumentHelp(
        "An address range (CIDR) held to no per-peer limit; repeat for several. Default: 127.0.0.0/8, ::1 and Apple's 17.0.0.0/8; giving any replaces them, `none` leaves none.",
        valueName: "cidr"))
    var unlimitedPeer: [String] = []
    @Option(name: .long, help: ArgumentHelp("Refused bodies kept at most, all together (bytes; K, M, G suffixes); the oldest are dropped first.", valueName: "size"))
    var quarantineMaxBytes: String = "64M"
    @Option(name: .long, help: ArgumentHelp("Refused bodies kept at most (identical bodies are kept once, with a count).", valueName: "n"))
    var quarantineMaxBodies: Int = 10_000
    @Option(name: .long, help: ArgumentHelp("A refused body larger than this is kept as its hash, size and first --quarantine-prefix bytes.", valueName: "size"))
    var quarantineWholeLimit: String = "64K"
    @Option(name: .long, help: ArgumentHelp("How much of a larger refused body is kept.", valueName: "size")) var quarantinePrefix: String = "4K"
    @Option(name: .long, help: ArgumentHelp("Refused bodies written to the quarantine a second at most, in bursts of twice that (0: no limit).", valueName: "n"))
    var quarantineRate: Double = 50
    @Option(name: .long, help: ArgumentHelp("Where the receiver's metrics are served (GET, Prometheus text); `none` serves and counts none.", valueName: "path"))
    var metricsPath: String = "/metrics"
    @Option(name: .long, help: ArgumentHelp(
        "Serve the metrics and /healthz on this second address (plain HTTP) instead of the receiver's, which then answers the metrics path 404.",
        valueName: "host:port"))
    var metricsAddress: String?
    @Flag(name: .long, help: "Ask the App Store Server (the demo with --demo) for a TEST notification once listening.") var sendTest = false
    @Flag(name: .long, help: "Print nothing per arrival.") var quiet = false
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard (try? ListenAddress.split(address)) != nil else { throw ValidationError("--address must be host:port, such as 127.0.0.1:8080 or [::1]:8080.") }
        guard path.hasPrefix("/") else { throw ValidationError("--path must start with /.") }
        if let metricsAddress {
            guard (try? ListenAddress.split(metricsAddress)) != nil else {
                throw ValidationError("--metrics-address must be host:port, such as 127.0.0.1:9090 or [::1]:9090.")
            }
            guard metricsPath != "none" else { throw ValidationError("--metrics-address serves the metrics: it cannot go with --metrics-path none.") }
        }
        guard metricsPath == "none" || metricsPath.hasPrefix("/") else { throw ValidationError("--metrics-path must start with / (or be none).") }
        guard (tlsCert == nil) == (tlsKey == nil) else { throw ValidationError("--tls-cert and --tls-key go together.") }
        if let forwardTo {
            guard let url = URL(string: forwardTo), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                throw ValidationError("--forward-to must be an http(s) URL.")
            }
        }
        if mirrorStatus && forwardTo == nil { throw ValidationError("--mirror-status needs --forward-to.") }
        guard forwardTimeout.isFinite, forwardTimeout > 0, forwardTimeout <= 600 else {
            throw ValidationError("--forward-timeout must be more than 0 and at most 600 seconds.")
        }
        guard (1...4096).contains(maxConcurrent) else { throw ValidationError("--max-concurrent must be 1 to 4096.") }
        for (name, value) in [("--read-timeout", readTimeout), ("--drain-timeout", drainTimeout)] {
            guard value.isFinite, value > 0, value <= 3600 else { throw ValidationError("\(name) must be more than 0 and at most 3600 seconds.") }
        }
        guard storeDeadline.isFinite, storeDeadline >= 0.1, storeDeadline <= 60 else {
            throw ValidationError("--store-deadline must be 0.1 to 60 seconds.")
        }
        _ = try limits()
    }

    /// The abuse limits as the options give them.
    func limits() throws -> (maxBody: Int, unlimited: [PeerRange], quarantine: QuarantineLimits) {
        func size(_ name: String, _ text: String, atMost: Int) throws -> Int {
            guard let value = ByteSize.parse(text), value <= atMost else {
                throw ValidationError("\(name) must be a size in bytes such as 65536, 64K or 1M, at most \(ByteSize.describe(atMost)).")
            }
            return value
        }
        let maxBody = try size("--max-body", maxBody, atMost: 64 << 20)
        guard maxBody > 0 else { throw ValidationError("--max-body must be more than 0.") }
        guard maxConnectionsPerPeer >= 0 else { throw ValidationError("--max-connections-per-peer must be 0 or more.") }
        guard maxRatePerPeer.isFinite, maxRatePerPeer >= 0 else { throw ValidationError("--max-rate-per-peer must be 0 or more.") }
        var unlimited = PeerRange.loopback + [PeerRange.apple]
        if !unlimitedPeer.isEmpty {
            unlimited = try unlimitedPeer.filter { $0 != "none" }.map { text in
                guard let range = PeerRange(text) else { throw ValidationError("--unlimited-peer takes an address or CIDR range such as 17.0.0.0/8, not \(text).") }
                return range
            }
        }
        var quarantine = QuarantineLimits()
        quarantine.maxBytes = try size("--quarantine-max-bytes", quarantineMaxBytes, atMost: 1 << 40)
        guard quarantineMaxBodies >= 1 else { throw ValidationError("--quarantine-max-bodies must be 1 or more.") }
        quarantine.maxBodies = quarantineMaxBodies
        quarantine.wholeBodyLimit = try size("--quarantine-whole-limit", quarantineWholeLimit, atMost: 64 << 20)
        quarantine.prefixBytes = try size("--quarantine-prefix", quarantinePrefix, atMost: quarantine.wholeBodyLimit)
        guard quarantineRate.isFinite, quarantineRate >= 0 else { throw ValidationError("--quarantine-rate must be 0 or more.") }
        return (maxBody, unlimited, quarantine)
    }

    func run() async throws {
        try await runReporting {
            let (host, port) = try ListenAddress.split(address)
            // Only the verifier is needed to receive; API credentials only to ask for a test notification.
            let session: Session?
            let verifier: SignedDataVerifier
            if global.demo || sendTest {
                let opened = try await Session.open(global)
                guard let made = opened.verifier else {
                    await opened.close()
                    throw CLIError("Cannot verify notifications: \(opened.verifierProblem ?? "no verifier")", status: .configuration)
                }
                session = opened
                verifier = made
            } else {
                session = nil
                verifier = try ReceivingProfile.verifier(global)
            }
            let store: any NotificationStore
            let location: StoreLocation
            do {
                // The demo's receiver writes the demo's store, which every --demo command reads.
                if let demo = session?.demo, storeOptions.store == nil {
                    location = try await DemoStore.prepare(demo, verifier: verifier)
                } else {
                    location = try storeOptions.location(profileStore: session?.demo == nil ? try ReceivingProfile.resolve(global).store : nil)
                }
                store = try await StoreAccess.open(location, writeDeadline: .milliseconds(Int64(storeDeadline * 1000)))
            } catch {
                await session?.close()
                throw error
            }
            var configuration = NotificationReceiver.Configuration()
            configuration.host = host
            configuration.port = port
            configuration.path = path
            configuration.maxConcurrentRequests = maxConcurrent
            configuration.readTimeout = .milliseconds(Int64(readTimeout * 1000))
            configuration.drainTimeout = .milliseconds(Int64(drainTimeout * 1000))
            configuration.storeDeadline = .milliseconds(Int64(storeDeadline * 1000))
            let output = ArrivalPrinter(json: global.json, quiet: quiet)
            configuration.onStoreHealth = { [shown = location.description] in output.storeHealth($0, store: shown) }
            let limits = try limits()
            configuration.maxBodyBytes = limits.maxBody
            configuration.maxConnectionsPerPeer = maxConnectionsPerPeer
            configuration.maxRequestsPerSecondPerPeer = maxRatePerPeer
            configuration.unlimitedPeers = limits.unlimited
            configuration.quarantine = limits.quarantine
            configuration.quarantineWritesPerSecond = quarantineRate
            configuration.metricsPath = metricsPath == "none" ? nil : metricsPath
            configuration.metricsAddress = try metricsAddress.map(ListenAddress.split)
            if let forwardTo, let url = URL(string: forwardTo) {
                configuration.forward = ForwardConfiguration(url: url, timeout: forwardTimeout, mirrorStatus: mirrorStatus)
            }
            if let tlsCert, let tlsKey {
                configuration.tls = NotificationReceiver.TLSFiles(certificateChainPath: tlsCert, privateKeyPath: tlsKey)
            }
            let receiver: NotificationReceiver
            do {
                receiver = try await NotificationReceiver.start(configuration, verifier: verifier, store: store) { output.print($0) }
            } catch {
                try? await store.close()
                await session?.close()
                if case ReceiverError.tls = error {
                    throw CLIError("\(error)", hint: "--tls-cert takes the PEM certificate chain, leaf first; --tls-key its PEM private key.", status: .configuration)
                }
                throw CLIError("\(error)", hint: "Choose another --address (port 0 picks a free one).", status: .configuration)
            }
            // Every --demo process now sends here: a test-notification in another shell arrives.
            var previousWebhook: URL?
            if let demo = session?.demo {
                previousWebhook = demo.shareWebhook(receiver.url)
                let before = previousWebhook.map { " instead of \($0.absoluteString)" } ?? ""
                output.note("The demo's notifications (test-notification --demo, extensions, refunds) now come here\(before) until this receiver stops.")
            }
            output.banner(
                url: receiver.url, store: location.description, environment: verifier.environment?.label ?? "any", bundleId: verifier.bundleId ?? "any",
                metrics: configuration.metricsAddress == nil ? nil : receiver.metricsURL)
            if sendTest, let session {
                do {
                    let token = try await session.client.requestTestNotification().testNotificationToken ?? ""
                    output.note("Requested a test notification in \(session.environmentLabel) (token \(token)).")
                } catch let error as APIError {
                    output.note("The test notification was not requested: \(error.summary)")
                }
            }
            await ShutdownSignal.wait()
            output.note("Stopping: finishing requests in flight.")
            let stopping = ContinuousClock.now
            let drained = await receiver.stop()
            // The demo's notifications go back to where they went before, not to a stopped receiver.
            session?.demo?.withdrawWebhook(receiver.url, restoring: previousWebhook)
            // A store stuck on its server must not hold the exit past the drain timeout's second.
            let left = stopping + configuration.drainTimeout + .milliseconds(900) - ContinuousClock.now
            try? await withinDeadline(max(left, .milliseconds(150))) { try await store.close() }
            await session?.close()
            let cutOff = receiver.cutOff
            output.note(output.summary + (drained ? "" : " \(cutOff) request\(cutOff == 1 ? " was" : "s were") cut off unanswered after --drain-timeout \(WriteDeadline.words(configuration.drainTimeout)): not answered 200, so Apple sends \(cutOff == 1 ? "it" : "them") again."))
            if let abuse = ArrivalPrinter.abuseSummary(receiver.counters) { output.note(abuse) }
        }
    }
}

/// One line per arrival, written whole so concurrent arrivals do not mix; counts for the summary.
final class ArrivalPrinter: Sendable {
    let json: Bool
    let quiet: Bool
    private let counts = Mutex([Arrival.Outcome: Int]())

    init(json: Bool, quiet: Bool) {
        self.json = json
        self.quiet = quiet
    }

    func print(_ arrival: Arrival) {
        counts.withLock { $0[arrival.outcome, default: 0] += 1 }
        guard !quiet else { return }
        if json {
            var object: [String: Any?] = [
                "receivedAt": DisplayFormat.iso(arrival.receivedAt), "outcome": arrival.outcome.rawValue, "status": arrival.status,
                "ms": (arrival.milliseconds * 10).rounded() / 10, "notificationUUID": arrival.notificationUUID,
                "notificationType": arrival.notificationType, "subtype": arrival.subtype, "verdict": arrival.verdict,
                "detail": arrival.detail, "deliveryCount": arrival.deliveryCount, "transactionId": arrival.transactionId,
                "forwardResult": arrival.forwardResult,
                "remoteAddress": arrival.remoteAddress,
            ]
            object = object.filter { $0.value != nil }
            write(JSONLine.render(object.mapValues { $0! }))
        } else {
            let kind = [arrival.notificationType ?? "-", arrival.subtype].compactMap { $0 }.joined(separator: "/")
            var line = "\(DisplayFormat.date(arrival.receivedAt, seconds: true))  \(arrival.status)  \(kind)  \(arrival.notificationUUID ?? "-")"
            line += "  \(arrival.verdict)  \(arrival.outcome.rawValue)"
            if let count = arrival.deliveryCount, count > 1 { line += " (delivery \(count))" }
            if let forward = arrival.forwardResult { line += "  forward: \(forward)" }
            line += String(format: "  %.1f ms", arrival.milliseconds)
            if arrival.outcome != .stored && arrival.outcome != .duplicate, let detail = arrival.detail { line += "  \(detail)" }
            write(line)
        }
    }

    /// `metrics` only when they are served on an address of their own.
    func banner(url: URL, store: String, environment: String, bundleId: String, metrics: URL? = nil) {
        if json {
            var fields = ["listening": url.absoluteString, "store": store, "environment": environment, "bundleId": bundleId]
            if let metrics { fields["metrics"] = metrics.absoluteString }
            write(JSONLine.render(fields))
        } else {
            write("Listening on \(url.absoluteString) for \(bundleId) in \(environment). Storing in \(store). Ctrl-C stops.")
            if let metrics { note("Metrics on \(metrics.absoluteString) (and /healthz there).") }
        }
    }

    /// The store's outage, said once when writes begin to fail and once when one succeeds again.
    func storeHealth(_ event: StoreHealthEvent, store: String) {
        switch event {
        case .down(let cause):
            let why = cause.hasSuffix(".") ? String(cause.dropLast()) : cause
            note("Store down: \(store): \(why). Answering 503 at once until it can be written (Apple sends again); /healthz answers 503 meanwhile.")
        case .up(let lasted, let refused):
            note("Store back: \(store) was written again after \(WriteDeadline.words(lasted)) down; \(refused) request\(refused == 1 ? " was" : "s were") answered 503 at once meanwhile.")
        }
    }

    /// Messages about the receiver itself go to standard error, so standard output stays one line per arrival.
    func note(_ text: String) {
        StandardStreams.error(text + "\n")
    }

    var summary: String {
        let counts = self.counts.withLock { $0 }
        return "Stopped. Stored \(counts[.stored, default: 0]), duplicates \(counts[.duplicate, default: 0]), "
            + "quarantined \(counts[.quarantined, default: 0]), not stored \(counts[.storeFailed, default: 0])."
    }

    private func write(_ line: String) {
        StandardStreams.output(Data((line + "\n").utf8))
    }

    /// What the limits refused, cut or dropped, when they did anything.
    static func abuseSummary(_ counters: ReceiverCounters) -> String? {
        let parts: [(String, Int)] = [
            ("connections over the per-peer limit", counters[.connectionsOverPeerLimit]), ("heads too slow", counters[.headerTimeouts]),
            ("bodies cut off", counters[.bodiesCutOff]), ("slow bodies cut by the stop", counters[.readsCutByStop]),
            ("answered 429", counters[.rateLimited]),
            ("refused bodies recognised", counters[.refusedRecognised]), ("quarantine repeats", counters[.quarantineRepeats]),
            ("quarantined bodies dropped", counters[.quarantineDropped]), ("refused bodies not kept", counters[.quarantineNotKept]),
        ].filter { $0.1 > 0 }
        guard !parts.isEmpty else { return nil }
        return "Limits: " + parts.map { "\($0.0) \($0.1)" }.joined(separator: ", ") + "."
    }
}

enum JSONLine {
    static func render(_ object: [String: Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}

struct ReceivedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "received",
        abstract: "List the notifications `iapdesk listen` received, or follow them as they arrive.",
        discussion: "Reads the notification store only; no profile is needed (--profile reads that profile's store). See docs/webhooks.md.")

    @Option(name: .long, help: "Delivered since (1h, 7d, 2026-11-01, ...; default: all).") var since: String?
    @Option(name: .long, help: "Only this notification type, such as DID_RENEW.") var type: String?
    @Option(name: .long, help: "Only notifications about this transaction (its own or original transaction ID).") var transaction: String?
    @Flag(name: .long, help: "List the refused bodies kept in quarantine, with their reasons.") var quarantined = false
    @Flag(name: .long, help: "Keep printing new arrivals until Ctrl-C.") var follow = false
    @Option(name: .long, help: "Show the newest this many (default 50).") var limit: Int = 50
    @Flag(name: .long, help: "Print JSON for scripts (JSON lines with --follow).") var json = false
    @Option(name: .long, help: "Read this profile's store (default: the config file's default profile's; --store and IAPDESK_STORE come first).")
    var profile: String?
    @Flag(name: .long, help: "Read the demo's store: what iapdesk demo and listen --demo received, and what --demo commands re-posted.")
    var demo = false
    @OptionGroup var storeOptions: StoreOptions

    func validate() throws {
        guard limit > 0 else { throw ValidationError("--limit must be at least 1.") }
        if quarantined && (type != nil || transaction != nil) {
            throw ValidationError("--type and --transaction filter notifications; quarantined bodies have only --since.")
        }
    }

    func run() async throws {
        try await runReporting {
            let sinceDate = try since.map { try DateArgument.require($0, "--since") }
            let location: StoreLocation
            if demo && storeOptions.store == nil {
                guard FileManager.default.fileExists(atPath: DemoStore.seededMarker) else {
                    throw CLIError(
                        "The demo has no notification store yet (\(DemoStore.path)).",
                        hint: "iapdesk demo, iapdesk listen --demo or any --demo reconcile makes it.", status: .notFound)
                }
                location = .file(path: DemoStore.path)
            } else {
                location = try storeOptions.location(profileStore: StoreOptions.configuredStore(profile: profile))
            }
            let path = location.description
            let store = try await StoreAccess.openExisting(location)
            do {
                try await show(store, path: path, since: sinceDate)
                try? await store.close()
            } catch {
                try? await store.close()
                throw error
            }
        }
    }

    private func show(_ store: any NotificationStore, path: String, since sinceDate: Date?) async throws {
        do {
            let printer = Printer(json: json)
            var filter = NotificationFilter(since: sinceDate, type: type?.uppercased(), transactionId: transaction, limit: limit)
            if quarantined {
                let entries = try await store.quarantined(QuarantineFilter(since: sinceDate, limit: limit))
                if follow {
                    for entry in entries { line(entry) }
                    let latest = try await store.quarantined(QuarantineFilter(limit: 1)).last?.id ?? 0
                    try await poll(from: max(entries.last?.id ?? 0, latest)) { cursor in
                        let new = try await store.quarantined(QuarantineFilter(afterId: cursor))
                        for entry in new { line(entry) }
                        return new.last?.id ?? cursor
                    }
                    return
                }
                printer.emit(["store": path, "count": entries.count, "quarantined": entries.map(StoredRecords.record)])
                var table = TextTable("RECEIVED", "REASON", "ANSWERED", "SIZE", "TIMES", "FROM", "DETAIL")
                for entry in entries {
                    table.add(
                        DisplayFormat.date(entry.receivedAt, seconds: true), entry.reason, String(entry.answeredStatus),
                        "\(entry.bodySize)\(entry.truncated ? "+" : "")", String(entry.count), entry.remoteAddress ?? "-", entry.detail)
                }
                printer.text(entries.isEmpty ? "Nothing quarantined in \(path)." : "\(entries.count) quarantined in \(path)\n\n" + table.render())
                return
            }
            let rows = try await store.notifications(filter)
            if follow {
                for row in rows { line(row) }
                filter.limit = nil
                let latest = try await store.notifications(NotificationFilter(limit: 1)).last?.lastDeliveryId ?? 0
                try await poll(from: max(rows.last?.lastDeliveryId ?? 0, latest)) { [filter] cursor in
                    var next = filter
                    next.afterDelivery = cursor
                    let new = try await store.notifications(next)
                    for row in new { line(row) }
                    return new.last?.lastDeliveryId ?? cursor
                }
                return
            }
            // Each notification's re-posts by replay and recover, oldest first: the latest says where it stands.
            var replays: [String: [StoredReplay]] = [:]
            for replay in try await store.replays(uuids: Set(rows.map(\.notificationUUID))).sorted(by: { $0.id < $1.id }) {
                replays[replay.attempt.notificationUUID.lowercased(), default: []].append(replay)
            }
            printer.emit(["store": path, "count": rows.count, "notifications": rows.map { row in
                var record = StoredRecords.record(row)
                record["replays"] = replays[row.notificationUUID.lowercased()]?.map(StoredRecords.record)
                return record
            }])
            var table = TextTable("RECEIVED", "TYPE", "SUBTYPE", "UUID", "VERDICT", "DELIVERIES", "ANSWERED", "TRANSACTION")
            let sentOn = rows.contains { $0.forwardResult != nil || replays[$0.notificationUUID.lowercased()] != nil }
            if sentOn { table.headers.append("TO THE APP (LATEST)") }
            for row in rows {
                var cells = [
                    DisplayFormat.date(row.lastReceivedAt, seconds: true), row.notificationType ?? "?", row.subtype ?? "-", row.notificationUUID,
                    row.verdict, String(row.deliveryCount), String(row.answeredStatus), row.transactionId ?? row.originalTransactionId ?? "-",
                ]
                if sentOn {
                    // A re-post is later than the forward made at arrival, so it is what holds now.
                    let latest = replays[row.notificationUUID.lowercased()]?.last.map { "\($0.attempt.command): \($0.attempt.result)" }
                    cells.append(latest ?? row.forwardResult.map { "forward: \($0)" } ?? "-")
                }
                table.add(cells)
            }
            printer.text(rows.isEmpty ? "No notifications match in \(path)." : "\(rows.count) notification\(rows.count == 1 ? "" : "s") in \(path)\n\n" + table.render())
        } catch let error as NotificationStoreError {
            throw CLIError(error.description, status: .failure)
        } catch {
            throw CLIError("The notification store at \(path) cannot be read: \(error).", status: .failure)
        }
    }

    /// Calls `step` every half second with the cursor it last returned, until Ctrl-C or SIGTERM.
    private func poll(from start: Int64, _ step: @escaping @Sendable (Int64) async throws -> Int64) async throws {
        let stopped = Task { await ShutdownSignal.wait() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await stopped.value }
            group.addTask {
                var cursor = start
                var down = false
                while !Task.isCancelled {
                    try await Task.sleep(for: .milliseconds(down ? 2_000 : 500))
                    // A store that goes away (a server restarted, a dropped connection) is said once,
                    // and followed again when it is back: silence would read as "nothing arriving".
                    do {
                        cursor = try await step(cursor)
                        if down { Self.note("the store is back; following again.") }
                        down = false
                    } catch is CancellationError {
                        return
                    } catch {
                        if !down { Self.note("the store cannot be read (\(error)); retrying every 2 s, Ctrl-C stops.") }
                        down = true
                    }
                }
            }
            do {
                try await group.next()
            } catch is CancellationError {}
            group.cancelAll()
        }
    }

    private func line(_ row: StoredNotification) {
        if json {
            Self.write(JSONLine.render(StoredRecords.record(row).compactMapValues { $0 }))
        } else {
            Self.write("\(DisplayFormat.date(row.lastReceivedAt, seconds: true))  \(row.notificationType ?? "?")\(row.subtype.map { "/" + $0 } ?? "")  "
                + "\(row.notificationUUID)  \(row.verdict)  deliveries \(row.deliveryCount)  answered \(row.answeredStatus)  "
                + "\(row.transactionId ?? row.originalTransactionId ?? "-")")
        }
    }

    private static func write(_ line: String) {
        StandardStreams.output(Data((line + "\n").utf8))
    }

    /// About following itself, on standard error: standard output stays one line per notification.
    private static func note(_ text: String) {
        StandardStreams.error("note: \(text)\n")
    }

    private func line(_ entry: QuarantinedDelivery) {
        if json {
            Self.write(JSONLine.render(StoredRecords.record(entry).compactMapValues { $0 }))
        } else {
            Self.write("\(DisplayFormat.date(entry.receivedAt, seconds: true))  \(entry.reason)  answered \(entry.answeredStatus)  \(entry.detail)")
        }
    }
}
