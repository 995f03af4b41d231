import AppStoreServerAPI
import ArgumentParser
import DemoServer
import DeskCore
import Foundation

struct ServeDemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve-demo",
        abstract: "Run only the embedded demo App Store Server, and print how to reach it.",
        discussion: "Stops on Ctrl-C or SIGTERM. Fault flags make it misbehave on purpose, to see how clients cope.")

    @Option(name: .long, help: "Port to listen on (0: a free one).") var port: Int = 0
    @Option(name: .long, help: "Production or Sandbox: which environment the printed base URL serves.") var environment: String = "Production"
    @Option(name: .long, help: "Where test and new notifications are POSTed (default: the demo's own receiver).") var webhookURL: String?
    @Option(name: .long, help: "Folder for the demo key and root certificate (default: a new temporary folder).") var dataDir: String?
    @Option(name: .long, help: "Fault: add this many milliseconds before every answer (or every Nth, with --latency-every).") var latencyMs: Int = 0
    @Option(name: .long, help: "Fault: only every Nth request waits --latency-ms.") var latencyEvery: Int?
    @Flag(name: .long, help: "Fault: never answer (requests wait until the server stops).") var hang = false
    @Option(name: .long, help: "Fault: send every answer's body one byte at a time, this many milliseconds apart.") var trickleMs: Int = 0
    @Flag(name: .long, help: "Fault: enforce Apple's per-endpoint rate limits (429 with Retry-After).") var rateLimits = false
    @Option(name: .long, help: "Fault: every Nth request fails.") var failEvery: Int?
    @Option(name: .long, help: "Fault: status of those failures, 500 or 503.") var failStatus: Int = 500
    @Option(name: .long, help: "Fault: every Nth answer has a body that is not JSON.") var malformedEvery: Int?
    @Option(name: .long, help: "Fault: every Nth answer is cut short.") var truncatedEvery: Int?
    @Flag(name: .long, help: "Fault: every signature served is wrong.") var badSignatures = false
    @Option(name: .long, help: ArgumentHelp(
        "Fault: answer 401 to every request to production, sandbox or all, as Apple does in Production for an app not released yet.",
        valueName: "environment"))
    var rejectTokens: String?
    @Flag(name: .long, help: "Fault: answer 404 AppNotFoundError (4040003) to every authenticated request, as for an unknown bundle ID.")
    var appNotFound = false

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0 to 65535.") }
        guard failStatus == 500 || failStatus == 503 else { throw ValidationError("--fail-status must be 500 or 503.") }
        guard latencyMs >= 0, trickleMs >= 0 else { throw ValidationError("--latency-ms and --trickle-ms must not be negative.") }
        if latencyEvery != nil && latencyMs == 0 { throw ValidationError("--latency-every needs --latency-ms.") }
        for (name, value) in [
            ("--fail-every", failEvery), ("--malformed-every", malformedEvery), ("--truncated-every", truncatedEvery), ("--latency-every", latencyEvery),
        ] {
            if let value, value < 1 { throw ValidationError("\(name) must be at least 1.") }
        }
        _ = try rejectedEnvironments()
        if let webhookURL {
            guard let url = URL(string: webhookURL), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                throw ValidationError("--webhook-url must be an http(s) URL.")
            }
        }
    }

    func rejectedEnvironments() throws -> Set<AppStoreEnvironment> {
        switch rejectTokens?.lowercased() {
        case nil: return []
        case "production": return [.production]
        case "sandbox": return [.sandbox]
        case "all": return [.production, .sandbox]
        case let other?: throw ValidationError("--reject-tokens takes production, sandbox or all, not \(other).")
        }
    }

    func run() async throws {
        try await runReporting {
            var configuration = DemoServer.Configuration()
            configuration.port = port
            configuration.environment = try ProfileParsing.environmentFlag(environment)
            configuration.webhookURL = webhookURL.flatMap(URL.init(string:))
            configuration.faults.latency = Double(latencyMs) / 1000
            configuration.faults.latencyEvery = latencyEvery
            configuration.faults.hang = hang
            configuration.faults.trickle = Double(trickleMs) / 1000
            configuration.faults.rateLimits = rateLimits
            configuration.faults.failEvery = failEvery
            configuration.faults.failureStatus = failStatus
            configuration.faults.malformedEvery = malformedEvery
            configuration.faults.truncatedEvery = truncatedEvery
            configuration.faults.badSignatures = badSignatures
            configuration.faults.rejectTokens = try rejectedEnvironments()
            configuration.faults.appNotFound = appNotFound

            let folder = try dataDir.map { path -> String in
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
                return path
            } ?? NSTemporaryDirectory() + "iapdesk-demo-\(ProcessInfo.processInfo.processIdentifier)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            // Each run writes its own root certificate there: a second server on the same folder
            // would make the first one's signatures untrusted.
            let lock = open(folder + "/.serve-demo.lock", O_RDWR | O_CREAT, 0o600)
            guard lock >= 0, flock(lock, LOCK_EX | LOCK_NB) == 0 else {
                throw CLIError("Another serve-demo is using \(folder).", hint: "Give this one its own --data-dir, or stop the other first.", status: .configuration)
            }
            defer { close(lock) }
            let keyPath = folder + "/SubscriptionKey_\(DemoServer.keyId).p8"
            let rootPath = folder + "/demo-root.der"
            // Reuse a key left by an earlier run, so clients configured against it keep working.
            if let existing = try? SigningKey.load(path: keyPath) {
                configuration.signingKey = existing.privateKey
            }
            let server: DemoServer
            do {
                server = try await DemoServer.start(configuration)
            } catch let error as DemoServerError {
                throw CLIError(error.description, status: .configuration)
            }
            if server.webhookURL == nil { server.webhookURL = server.receiverURL }
            try DemoFiles.writeKey(server.signingKey.pemRepresentation, to: keyPath)
            try server.rootCertificateDER.write(to: URL(fileURLWithPath: rootPath))

            var fields = FieldList()
            fields.add("Base URL", server.baseURL.absoluteString)
            fields.add("Environment", server.environment.label)
            fields.add("Sandbox URL", server.sandboxURL.absoluteString)
            fields.add("Key ID", DemoServer.keyId)
            fields.add("Issuer ID", DemoServer.issuerId)
            fields.add("Bundle ID", DemoServer.bundleId)
            fields.add("App Apple ID", String(DemoServer.appAppleId))
            fields.add("Key file", keyPath)
            fields.add("Root certificate", rootPath)
            fields.add("Seed IDs", server.seedURL.absoluteString)
            fields.add("Notifications to", server.webhookURL?.absoluteString)
            if !configuration.faults.isEmpty { fields.add("Faults", "on") }
            print("iapdesk demo App Store Server is running. Ctrl-C stops it.\n")
            print(fields.render())
            print("""

                Try: iapdesk lookup MK5TTTVWJH --base-url \(server.baseURL.absoluteString) --environment \(server.environment.rawValue) \\
                       --issuer-id \(DemoServer.issuerId) --key-id \(DemoServer.keyId) --key-file \(keyPath) \\
                       --bundle-id \(DemoServer.bundleId) --app-apple-id \(DemoServer.appAppleId) --root-cert \(rootPath)
                """)
            fflush(nil)
            await ShutdownSignal.wait()
            print("\nStopping the demo server.")
            fflush(nil)
            await server.stop()
        }
    }
}
