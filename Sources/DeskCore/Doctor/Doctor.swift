import AppStoreServerAPI
import Foundation

/// The set-up checks behind `iapdesk doctor` and the console's `:doctor`: the config file, the
/// key and IDs, the clock against Apple's, a token tried in Production and in Sandbox, the bundle
/// ID as Apple knows it, and the roots signed data is verified against.
public struct Doctor: Sendable {
    /// Where the profile came from, as the loader found it.
    public struct ConfigSource: Sendable, Equatable {
        public var path: String
        public var exists: Bool
        /// Why the file could not be used (it stays nil when it parsed).
        public var problem: String?

        public init(path: String, exists: Bool, problem: String? = nil) {
            self.path = path
            self.exists = exists
            self.problem = problem
        }
    }

    public var profile: Profile
    public var config: ConfigSource?
    /// Where tokens are tried; Apple's two hosts unless the profile has a base URL.
    public var endpoints: [ServerEnvironment]
    public var transport: any HTTPTransport
    /// This machine's clock; tests skew it.
    public var now: @Sendable () -> Date
    /// Seconds the whole run may take (`--timeout`, the profile's timeout): a check still waiting
    /// for a server then is reported as not answered in time, and the run ends.
    public var timeout: TimeInterval

    /// A check that waits for a server of its own (the notification store's), run beside the token
    /// probes within the run's deadline.
    public struct ServerCheck: Sendable {
        public var name: String
        /// What to check when the server did not answer in time.
        public var fix: String
        public var run: @Sendable () async -> DoctorCheck

        public init(name: String, fix: String, run: @escaping @Sendable () async -> DoctorCheck) {
            self.name = name
            self.fix = fix
            self.run = run
        }
    }

    /// A clock further off than this makes Apple refuse tokens (issued in the future, or expired).
    public static let failingSkew: TimeInterval = 60
    public static let warningSkew: TimeInterval = 10

    public init(
        profile: Profile, config: ConfigSource?, endpoints: [ServerEnvironment]? = nil, transport: any HTTPTransport = AsyncHTTPClientTransport(),
        now: @escaping @Sendable () -> Date = { Date() }, timeout: TimeInterval? = nil
    ) {
        self.profile = profile
        self.config = config
        self.endpoints = endpoints ?? Self.endpoints(for: profile)
        self.transport = transport
        self.now = now
        self.timeout = timeout ?? profile.effectiveTimeout
    }

    /// Apple's Production and Sandbox hosts; with a base URL, only the profile's environment there
    /// (another server's second environment cannot be guessed).
    public static func endpoints(for profile: Profile) -> [ServerEnvironment] {
        if let baseURL = profile.baseURL {
            return [ServerEnvironment(environment: profile.environment ?? .production, baseURL: baseURL)]
        }
        return [.production, .sandbox]
    }

    /// Every check, `serverChecks` last; the ones that wait for a server run at once, and all of
    /// them are done (or reported as not answered in time) by the end of `timeout`.
    public func run(alongside serverChecks: [ServerCheck] = []) async -> DoctorReport {
        let deadline = ContinuousClock.now + .milliseconds(Int64(max(0, timeout) * 1000))
        async let others = Self.runServerChecks(serverChecks, by: deadline, allowance: timeout)
        var checks = [configCheck()]
        checks.append(issuerIdCheck())
        checks.append(keyIdCheck())
        let key = profile.keyFile.map(KeyFileInspection.inspect)
        checks += keyChecks(key)
        checks.append(bundleIdCheck())
        checks.append(appAppleIdCheck())
        checks.append(rootCertificatesCheck())
        checks += await remoteChecks(key: key, by: deadline)
        checks += await others
        return DoctorReport(checks: checks)
    }

    /// Seconds from now to `deadline` (none left: 0).
    static func seconds(until deadline: ContinuousClock.Instant) -> TimeInterval {
        let left = deadline - .now
        return max(0, Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18)
    }

    static func words(_ seconds: TimeInterval) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(format: "%.1f s", seconds)
    }

    static let moreTime = "allow more time with --timeout SECONDS (or timeout = SECONDS in the profile)"

    static func runServerChecks(_ serverChecks: [ServerCheck], by deadline: ContinuousClock.Instant, allowance: TimeInterval) async -> [DoctorCheck] {
        await withTaskGroup(of: (Int, DoctorCheck).self) { group in
            for (index, check) in serverChecks.enumerated() {
                group.addTask {
                    switch await TimeLimit.run(seconds: seconds(until: deadline), { await check.run() }) {
                    case .finished(.success(let result)):
                        return (index, result)
                    case .finished(.failure), .timedOut:
                        return (index, DoctorCheck(
                            check.name, .fail, "no answer within the doctor's \(words(allowance)) deadline",
                            fix: "\(check.fix) Or \(moreTime).", failure: .unavailable))
                    }
                }
            }
            var results: [(Int, DoctorCheck)] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    // MARK: The profile

    func configCheck() -> DoctorCheck {
        let name = "config file"
        guard let config else { return DoctorCheck(name, .pass, "not used: the demo needs none") }
        if let problem = config.problem {
            return DoctorCheck(name, .fail, problem, fix: "Correct the file (docs/configuration.md lists every key), or write the profile again with iapdesk init.")
        }
        guard config.exists else {
            return DoctorCheck(
                name, .warn, "none at \(config.path); the profile comes from flags and variables only",
                fix: "iapdesk init writes a profile there, so the console and commands need no flags.")
        }
        return DoctorCheck(name, .pass, "\(config.path), profile \(profile.name)")
    }

    func issuerIdCheck() -> DoctorCheck {
        guard let issuer = profile.issuerId else {
            return DoctorCheck("issuer ID", .fail, "not set", fix: "Set issuer_id (the UUID above the keys in App Store Connect > Users and Access > Integrations).")
        }
        if let problem = CredentialRules.issuerIdProblem(issuer) {
            return DoctorCheck("issuer ID", .fail, "\(issuer) is not well formed: \(problem)", fix: "Copy the issuer ID from App Store Connect > Users and Access > Integrations.")
        }
        return DoctorCheck("issuer ID", .pass, issuer)
    }

    func keyIdCheck() -> DoctorCheck {
        guard let keyId = profile.keyId else {
            return DoctorCheck("key ID", .fail, "not set", fix: "Set key_id: the In-App Purchase key's ID, also in its file name SubscriptionKey_KEYID.p8.")
        }
        if let problem = CredentialRules.keyIdProblem(keyId) {
            return DoctorCheck("key ID", .fail, "\(keyId) is not well formed: \(problem)", fix: "Copy the key ID from App Store Connect > Users and Access > Integrations > In-App Purchase.")
        }
        if let file = profile.keyFile, file.contains("SubscriptionKey_"), !file.contains("SubscriptionKey_\(keyId)") {
            return DoctorCheck(
                "key ID", .warn, "\(keyId) differs from the ID in the key file's name (\((file as NSString).lastPathComponent))",
                fix: "Apple names each key file SubscriptionKey_KEYID.p8: use that file's key ID, or the file of this key ID.")
        }
        return DoctorCheck("key ID", .pass, keyId)
    }

    func keyChecks(_ key: KeyFileInspection?) -> [DoctorCheck] {
        guard let key else {
            return [
                DoctorCheck("key file", .fail, "not set", fix: "Set key_file to the path of the .p8 key downloaded from App Store Connect."),
                DoctorCheck("private key", .skip, "no key file"),
            ]
        }
        let file: DoctorCheck
        if !key.exists {
            file = DoctorCheck("key file", .fail, "\(key.path) does not exist", fix: "Download the In-App Purchase key (.p8) from App Store Connect and set key_file to its path.")
        } else if key.mode == nil {
            file = DoctorCheck("key file", .fail, key.problem ?? "\(key.path) cannot be examined", fix: "Check the path and the folder's permissions.")
        } else if key.tooOpen {
            file = DoctorCheck(
                "key file", .fail, "\(key.path) is readable by other users (mode \(key.modeText)); the console and commands refuse it",
                fix: "chmod 600 \(key.path)")
        } else {
            file = DoctorCheck("key file", .pass, "\(key.path), mode \(key.modeText)")
        }
        guard key.exists, key.mode != nil else { return [file, DoctorCheck("private key", .skip, "the key file cannot be read")] }
        if let problem = key.problem {
            return [file, DoctorCheck("private key", .fail, problem, fix: "Use the .p8 file App Store Connect gave you, unchanged (a P-256 key in PKCS#8 PEM).")]
        }
        return [file, DoctorCheck("private key", .pass, "an EC P-256 private key (PKCS#8)")]
    }

    func bundleIdCheck() -> DoctorCheck {
        guard let bundleId = profile.bundleId else {
            return DoctorCheck("bundle ID", .fail, "not set", fix: "Set bundle_id to the app's bundle ID, such as com.example.app.")
        }
        if let problem = CredentialRules.bundleIdProblem(bundleId) {
            return DoctorCheck("bundle ID", .fail, "\(bundleId) is not well formed: \(problem)", fix: "Copy the bundle ID from App Store Connect > the app > App Information.")
        }
        return DoctorCheck("bundle ID", .pass, bundleId)
    }

    func appAppleIdCheck() -> DoctorCheck {
        if let id = profile.appAppleId {
            guard id > 0 else { return DoctorCheck("app Apple ID", .fail, "\(id) is not a positive number", fix: "Copy the Apple ID from App Store Connect > the app > App Information.") }
            return DoctorCheck("app Apple ID", .pass, String(id))
        }
        if profile.environment == .sandbox {
            return DoctorCheck("app Apple ID", .pass, "not set; Sandbox data is verified without it")
        }
        return DoctorCheck(
            "app Apple ID", .warn, "not set: Production signed data cannot be verified without it",
            fix: "Set app_apple_id (App Store Connect > the app > App Information > Apple ID).")
    }

    /// Apple Root CA - G3 is built in; the profile's extra roots must be readable DER certificates.
    func rootCertificatesCheck() -> DoctorCheck {
        let name = "root certificates"
        do {
            _ = try SignedDataVerifier(bundleId: "com.example.check", appAppleId: nil, environment: .sandbox)
        } catch {
            return DoctorCheck(name, .fail, "Apple Root CA - G3 could not be loaded: \(error.description)", fix: "Rebuild iapdesk; the built-in root is damaged.")
        }
        var problems: [String] = []
        for path in profile.rootCerts {
            guard let data = FileManager.default.contents(atPath: path) else {
                problems.append("\(path) cannot be read")
                continue
            }
            do {
                _ = try SignedDataVerifier(bundleId: "com.example.check", appAppleId: nil, environment: .sandbox, additionalRoots: [data], trustAppleRoot: false)
            } catch {
                problems.append("\(path) is not a DER X.509 certificate")
            }
        }
        if !problems.isEmpty {
            return DoctorCheck(name, .fail, problems.joined(separator: "; "), fix: "root_certs lists DER certificate files (convert PEM with: openssl x509 -in root.pem -outform der -out root.der).")
        }
        let extra = profile.rootCerts.isEmpty ? "" : " and \(profile.rootCerts.count) from root_certs"
        return DoctorCheck(name, .pass, "Apple Root CA - G3 (built in)\(extra)")
    }

    // MARK: Apple

    func credentials(_ key: KeyFileInspection?) -> Credentials? {
        guard let issuer = profile.issuerId, let keyId = profile.keyId, let bundleId = profile.bundleId, let signingKey = key?.load() else { return nil }
        return Credentials(issuerId: issuer, keyId: keyId, bundleId: bundleId, signingKey: signingKey)
    }

    func remoteChecks(key: KeyFileInspection?, by deadline: ContinuousClock.Instant) async -> [DoctorCheck] {
        let tokenNames = endpoints.map { "token in \($0.environment.label)" }
        guard let credentials = credentials(key) else {
            let why = "needs the issuer ID, key ID, bundle ID and a readable P-256 key"
            return [DoctorCheck("clock", .skip, why)] + tokenNames.map { DoctorCheck($0, .skip, why) } + [DoctorCheck("bundle ID at Apple", .skip, why)]
        }
        // The environments are tried at once, each for what is left of the run's time (30 s at most).
        let limit = min(Self.seconds(until: deadline), 30)
        let probe = TokenProbe(transport: transport, timeout: limit)
        let endpoints = self.endpoints
        let now = self.now
        let results = await withTaskGroup(of: (Int, TokenProbe.Result).self) { group in
            for (index, endpoint) in endpoints.enumerated() {
                group.addTask {
                    let sentAt = now()
                    // The transport ends the request at `limit`; this keeps one that does not from holding the run.
                    switch await TimeLimit.run(seconds: limit, { await probe.send(to: endpoint, credentials: credentials, now: now) }) {
                    case .finished(.success(let result)):
                        return (index, result)
                    case .finished(.failure), .timedOut:
                        return (index, TokenProbe.Result(
                            environment: endpoint, outcome: .timedOut(seconds: limit), serverDate: nil, localDate: sentAt, roundTrip: limit))
                    }
                }
            }
            var results: [(Int, TokenProbe.Result)] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
        let skew = Self.skew(results)
        var checks = [clockCheck(skew, results)]
        for result in results { checks.append(tokenCheck(result, all: results, skew: skew)) }
        checks.append(appCheck(results))
        return checks
    }

    /// This machine's clock minus the server's (positive: ahead), from the quickest answer with a
    /// Date header; only what is more than that answer's uncertainty counts, so a slow network or a
    /// busy machine is not mistaken for a wrong clock.
    static func skew(_ results: [TokenProbe.Result]) -> TimeInterval? {
        guard let answered = results.filter({ $0.serverDate != nil }).min(by: { $0.roundTrip < $1.roundTrip }),
              let server = answered.serverDate else { return nil }
        // The Date header cuts to whole seconds: the server's clock was half a second later on average,
        // and it was read somewhere in the round trip.
        let skew = answered.localDate.timeIntervalSince(server.addingTimeInterval(0.5))
        let slack = answered.roundTrip / 2 + 0.5
        guard abs(skew) > slack else { return 0 }
        let beyond = abs(skew) - slack
        return beyond < 1 ? 0 : (skew > 0 ? beyond : -beyond).rounded()
    }

    func clockCheck(_ skew: TimeInterval?, _ results: [TokenProbe.Result]) -> DoctorCheck {
        guard let skew else {
            if results.allSatisfy({ $0.outcome.isUnanswered }) {
                return DoctorCheck("clock", .skip, "no answer to compare with")
            }
            return DoctorCheck("clock", .warn, "the server's answer had no Date header to compare with", fix: "Check the base URL is Apple's or passes its headers on.")
        }
        let words = Self.skewWords(skew)
        let fix = "Synchronise this machine's clock (for example: timedatectl set-ntp true, or chronyc makestep)."
        if abs(skew) > Self.failingSkew {
            return DoctorCheck("clock", .fail, "\(words) the server's: Apple refuses tokens from a clock more than 60 s off", fix: fix)
        }
        if abs(skew) > Self.warningSkew {
            return DoctorCheck("clock", .warn, "\(words) the server's; more than 60 s breaks every token", fix: fix)
        }
        return DoctorCheck("clock", .pass, skew == 0 ? "agrees with the server's to the second" : "\(words) the server's")
    }

    static func skewWords(_ skew: TimeInterval) -> String {
        "this machine's clock is \(Int(abs(skew))) s \(skew > 0 ? "ahead of" : "behind")"
    }

    func tokenCheck(_ result: TokenProbe.Result, all: [TokenProbe.Result], skew: TimeInterval?) -> DoctorCheck {
        let environment = result.environment.environment
        let name = "token in \(environment.label)"
        switch result.outcome {
        case .accepted, .appNotFound:
            return DoctorCheck(name, .pass, "accepted at \(result.environment.baseURL.absoluteString)")
        case .unreachable(let reason):
            return DoctorCheck(
                name, .fail, "no answer from \(result.environment.baseURL.absoluteString): \(reason)",
                fix: "Check the network, any proxy (HTTPS_PROXY) and the base URL.", failure: .unavailable)
        case .timedOut(let seconds):
            // The probe's time is what was left of the run's (30 s at most).
            let within = seconds < timeout - 0.5 ? Self.words(seconds.rounded()) : "the doctor's \(Self.words(timeout)) deadline"
            return DoctorCheck(
                name, .fail, "no answer from \(result.environment.baseURL.absoluteString) within \(within)",
                fix: "Check the network, any proxy (HTTPS_PROXY) and the base URL, or \(Self.moreTime).", failure: .unavailable)
        case .other(let status, let code):
            let answer = "HTTP \(status)" + (code.map { " with error \($0)" } ?? "")
            if status == 429 {
                return DoctorCheck(name, .warn, "\(answer): rate limited, so the token could not be judged", fix: "Run iapdesk doctor again in a minute.")
            }
            return DoctorCheck(
                name, .fail, "\(answer) from \(result.environment.baseURL.absoluteString), neither accepted nor refused",
                fix: "Try again later; if it persists, check the base URL is Apple's.", failure: .unavailable)
        case .refused:
            let (cause, fix) = refusalExplanation(environment, all: all, skew: skew)
            return DoctorCheck(name, .fail, "refused (HTTP 401): \(cause)", fix: fix, failure: .unauthorized)
        }
    }

    /// Why Apple said 401, from what the other answers and the clock say.
    func refusalExplanation(_ environment: AppStoreEnvironment, all: [TokenProbe.Result], skew: TimeInterval?) -> (String, String) {
        if let skew, abs(skew) > Self.failingSkew {
            return ("\(Self.skewWords(skew)) Apple's, so the token looks \(skew > 0 ? "issued in the future" : "expired")",
                    "Synchronise this machine's clock, then run iapdesk doctor again.")
        }
        let otherAccepted = all.contains { result in
            guard result.environment.environment != environment else { return false }
            switch result.outcome {
            case .accepted, .appNotFound: return true
            default: return false
            }
        }
        if environment == .production, otherAccepted {
            return ("Sandbox accepts the same token, so the key, key ID, issuer ID and bundle ID are right. Apple answers 401 in Production for an app with no version released on the App Store yet",
                    "Until the app's first release, use environment = \"Sandbox\"; after it, Production accepts this key.")
        }
        return ("a wrong issuer ID, a key ID that is not this key's, a revoked key or a key of another team, or a bundle ID this team does not have",
                "Compare the issuer ID and key ID with App Store Connect > Users and Access > Integrations > In-App Purchase (a revoked key shows there: make a new one), and the bundle ID with the app's.")
    }

    func appCheck(_ results: [TokenProbe.Result]) -> DoctorCheck {
        let name = "bundle ID at Apple"
        let bundleId = profile.bundleId ?? "-"
        let missing = results.compactMap { result -> String? in
            if case .appNotFound(let code) = result.outcome { return "\(result.environment.environment.label) (\(code))" }
            return nil
        }
        if !missing.isEmpty {
            return DoctorCheck(
                name, .fail, "bundle ID not found: Apple does not know \(bundleId) in \(missing.joined(separator: ", "))",
                fix: "Check bundle_id is the app's exactly (App Store Connect > the app > App Information) and belongs to this key's team.")
        }
        let accepted = results.filter { if case .accepted = $0.outcome { return true } else { return false } }
        guard !accepted.isEmpty else { return DoctorCheck(name, .skip, "no environment accepted the token") }
        return DoctorCheck(name, .pass, "\(bundleId) known in \(accepted.map(\.environment.environment.label).joined(separator: " and "))")
    }
}
