import AppStoreServerAPI
import DemoServer
import DeskCore
import Foundation

/// What a command works with: a client, a verifier and the profile, against Apple or the demo.
final class Session: Sendable {
    let profile: Profile
    let client: AppStoreServerClient
    /// Verifies signed data as the console does; without a verifier it marks payloads unverified, saying why.
    let verification: VerifyingService
    var verifier: SignedDataVerifier? { verification.verifier }
    var verifierProblem: String? { verification.problem }
    let demo: DemoServer?
    /// The config file the profile came from, read once (nil for the demo, which needs none).
    let configFile: ConfigFile?
    /// Seconds a command may take in all; each request of the console gets as long.
    var timeout: TimeInterval { profile.effectiveTimeout }

    private init(
        profile: Profile, client: AppStoreServerClient, verifier: SignedDataVerifier?, verifierProblem: String?, demo: DemoServer?, configFile: ConfigFile? = nil
    ) {
        self.profile = profile
        self.client = client
        self.verification = VerifyingService(verifier: verifier, problem: verifierProblem)
        self.demo = demo
        self.configFile = configFile
    }

    var environment: AppStoreEnvironment { client.environment.environment }
    var environmentLabel: String { demo != nil ? "Demo (\(environment.label))" : environment.label }

    static func open(_ options: GlobalOptions) async throws -> Session {
        if options.demo {
            return try await openDemo(environment: options.environment, timeout: try options.timeout.map { try ProfileParsing.timeoutFlag($0) })
        }
        let loader = ConfigLoader()
        let file = try loader.loadFile(path: options.config)
        let profile = try loader.resolve(file: file, name: options.profile, flags: try options.overrides())
        let missing = profile.missingForRequests
        guard missing.isEmpty else { throw ConfigurationError.incomplete(profile: profile.name, missing: missing) }
        let key = try SigningKey.load(path: profile.keyFile!)
        let credentials = Credentials(issuerId: profile.issuerId!, keyId: profile.keyId!, bundleId: profile.bundleId!, signingKey: key)
        let environment = profile.environment!
        let client: AppStoreServerClient
        if let baseURL = profile.baseURL {
            client = try AppStoreServerClient(
                credentials: credentials, environment: ServerEnvironment(environment: environment, baseURL: baseURL),
                callTimeout: profile.effectiveTimeout)
        } else {
            client = try AppStoreServerClient.apple(credentials: credentials, environment: environment, callTimeout: profile.effectiveTimeout)
        }
        let roots = try rootCertificates(profile)
        var verifier: SignedDataVerifier?
        var problem: String?
        do {
            verifier = try SignedDataVerifier(
                bundleId: profile.bundleId!, appAppleId: profile.appAppleId, environment: environment, additionalRoots: roots)
        } catch {
            problem = error.description
        }
        return Session(profile: profile, client: client, verifier: verifier, verifierProblem: problem, demo: nil, configFile: file)
    }

    /// The profile's extra trusted roots (DER files).
    static func rootCertificates(_ profile: Profile) throws -> [Data] {
        try profile.rootCerts.map { path in
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CLIError("Root certificate \(path) cannot be read.", status: .configuration)
            }
            return data
        }
    }

    /// The embedded demo; the timeout is the flag's, else IAPDESK_TIMEOUT's (profiles do not apply).
    static func openDemo(environment: String?, timeout: TimeInterval? = nil) async throws -> Session {
        var timeout = timeout
        if timeout == nil, let text = ProcessInfo.processInfo.environment["IAPDESK_TIMEOUT"], !text.isEmpty {
            timeout = try ProfileParsing.timeout(text, source: "IAPDESK_TIMEOUT")
        }
        var configuration = DemoServer.Configuration()
        if let environment { configuration.environment = try ProfileParsing.environmentFlag(environment) }
        // The demo's data and the writes it accepted last from run to run, until `demo --reset`.
        configuration.stateFolder = DemoStateLocation.path()
        let server: DemoServer
        do {
            server = try await DemoServer.start(configuration)
        } catch let error as DemoStateError {
            throw CLIError(error.description, hint: "iapdesk demo --reset removes the demo's kept state.", status: .configuration)
        }
        DemoStateLocation.report(server.keptState)
        // Test notifications go to the demo's own receiver, so the round trip works offline; what
        // it takes is kept in the demo's store, as a receiver in front of the app keeps it.
        server.webhookURL = server.receiverURL
        if let verifier = try? server.makeVerifier() {
            server.keepOwnDeliveries { body in await DemoStore.keep(body, demo: server, verifier: verifier) }
        }
        var profile = Profile(name: "demo")
        // The demo needs no config, but an agent's name (IAPDESK_AGENT) still names its writes.
        profile.agent = (try? ProfileOverrides.fromEnvironment(ProcessInfo.processInfo.environment))?.agent
        profile.bundleId = DemoServer.bundleId
        profile.appAppleId = DemoServer.appAppleId
        profile.environment = configuration.environment
        profile.baseURL = server.baseURL
        profile.keyId = DemoServer.keyId
        // The demo app sells Advanced Commerce products too (docs/advanced-commerce.md).
        profile.advancedCommerce = true
        profile.timeout = timeout
        return Session(
            profile: profile, client: try server.makeClient(callTimeout: profile.effectiveTimeout), verifier: try server.makeVerifier(),
            verifierProblem: nil, demo: server)
    }

    /// The client and verifier for data that lives in `environment` (where a record was found).
    func scoped(to environment: AppStoreEnvironment) -> (client: AppStoreServerClient, verifier: SignedDataVerifier?) {
        (client.client(for: environment) ?? client, verifier?.expecting(environment))
    }

    /// Who writes, and the ledger every write is recorded in (console and command line share it).
    func writeContext(source: WriteSource) async throws -> WriteContext {
        let (ledger, notes) = try await AuditLedgerAccess.openWithNotes(profileStore: profile.store, demo: demo != nil)
        return WriteContext(
            ledger: ledger, profile: profile.name, bundleId: profile.bundleId ?? "-", keyId: profile.keyId ?? "-",
            isDemo: demo != nil, source: source, agent: profile.agentName, stateFolder: ConfigLoader().stateDirectory, notes: notes)
    }

    /// The accounts this session writes in: its environment, and the fallback's when it has one.
    func accounts(_ context: WriteContext) -> Set<WriteAccount> {
        var accounts: Set<WriteAccount> = [context.account(for: client)]
        if let fallback = client.fallbackEnvironment { accounts.insert(context.account(for: client.switching(to: fallback))) }
        return accounts
    }

    /// The set-up checks for this session's profile (for the demo, its credentials written to
    /// `demoFolder`); nil when they cannot be prepared.
    func doctor(demoFolder: String) -> Doctor? {
        if let demo { return try? DoctorSetup.demoDoctor(demo, folder: demoFolder) }
        let path = configFile?.path ?? ConfigLoader().defaultConfigPath
        return Doctor(profile: profile, config: Doctor.ConfigSource(path: path, exists: FileManager.default.fileExists(atPath: path)))
    }

    func close() async {
        await demo?.stop()
    }

    /// The same session with its requests kept within `limiter`'s rates (a bulk run's pacing).
    /// Close the session it came from, not this one.
    func limited(by limiter: RequestRateLimiter) -> Session {
        Session(
            profile: profile, client: client.limited(by: limiter), verifier: verifier, verifierProblem: verifierProblem, demo: demo,
            configFile: configFile)
    }

    func requireWritable() throws {
        if profile.readOnly { throw ConfigurationError.readOnly(profile: profile.name) }
    }
}

extension Session {
    /// Said, not silently skipped, when --fallback has nowhere to go: only Apple's Production (and the
    /// demo) has a Sandbox beside it.
    func noteFallbackUnavailable() {
        guard client.fallbackEnvironment == nil else { return }
        StandardStreams.error("note: --fallback has no Sandbox to try with this profile (\(environmentLabel)\(profile.baseURL == nil ? "" : ", base_url set")); use a profile for Sandbox.\n")
    }
}
