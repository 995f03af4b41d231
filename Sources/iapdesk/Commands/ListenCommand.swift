import AppStoreServerAPI
import ArgumentParser
import DeskCore
import DeskStore
import Foundation
import Synchronization
import WebhookReceiver

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

            With --consumption-policy FILE each refund request (CONSUMPTION_REQUEST) stored is answered with Send Consumption \
            Information as the policy says, within a minute of its arrival, once (duplicates, several receivers on one store and \
            restarts included), through the audit ledger with the policy as its agent; each decision is a line on standard \
            error. This needs the profile's API credentials. See docs/refunds.md.
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
    @Option(name: .long, help: ArgumentHelp(
        "Answer each refund request (CONSUMPTION_REQUEST) stored with this consumption policy (TOML, docs/refunds.md).", valueName: "file"))
    var consumptionPolicy: String?
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
            let policy = try consumptionPolicy.map(ReceivingPolicy.load)
            // Only the verifier is needed to receive; API credentials to ask for a test notification or answer refund requests.
            let session: Session?
            let verifier: SignedDataVerifier
            if global.demo || sendTest || policy != nil {
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
                    StoreAccess.noteDemoKeepsItsStore()
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
            var responder: PolicyResponder?
            if let policy, let session {
                do {
                    responder = try await ReceivingPolicy.responder(policy, session: session, store: store, storeFlag: storeOptions.store, log: PolicyLog(json: global.json))
                } catch {
                    try? await store.close()
                    await session.close()
                    throw error
                }
            }
            let receiver: NotificationReceiver
            do {
                receiver = try await NotificationReceiver.start(configuration, verifier: verifier, store: store) { [responder] arrival in
                    output.print(arrival)
                    // Stored now (or delivered again): the policy answers it, once.
                    if let uuid = arrival.notificationUUID, arrival.outcome == .stored || arrival.outcome == .duplicate {
                        responder?.arrived(uuid, type: arrival.notificationType)
                    }
                }
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
                output.note("The demo's notifications (test-notification --demo, extensions, refunds) now come here\(before) until another receiver takes them (stopping this one leaves them failing, as an endpoint that is down).")
            }
            output.banner(
                url: receiver.url, store: location.description, environment: verifier.environment?.label ?? "any", bundleId: verifier.bundleId ?? "any",
                metrics: configuration.metricsAddress == nil ? nil : receiver.metricsURL)
            if let responder {
                output.note(ReceivingPolicy.banner(responder.policy, ledger: responder.ledgerLocation))
                responder.start()
            }
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
            // An answer cut off here has its intent in the ledger: the next start closes it without sending again.
            await responder?.stop()
            // The demo's notifications go back to a receiver still running before this one (another
            // listen, a console); else they stay here and fail, as Apple's do to an endpoint that is
            // down: stopping the receiver is how an outage is rehearsed.
            if let demo = session?.demo {
                if let previous = previousWebhook, ReceiverProbe.isListening(previous) {
                    demo.withdrawWebhook(receiver.url, restoring: previous)
                } else if demo.sharedWebhookURL == receiver.url {
                    output.note(
                        "The demo keeps sending its notifications here, and they now fail as to an endpoint that is down, until a receiver takes them (listen --demo, iapdesk demo) or iapdesk demo --reset.")
                }
            }
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
