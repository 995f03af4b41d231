import AppStoreServerAPI
import DeskCore
import Foundation

/// The answers, each checked.
struct InitAnswers {
    var issuerId: String?
    var keyId: String?
    var keyFile: String?
    var bundleId: String?
    var environment: AppStoreEnvironment?
    var appAppleId: Int64?
    /// True once the app Apple ID question was answered, skipped or not needed (nil is then an answer).
    var appAppleIdSettled = false
    /// The flag of the question being asked: the one standard input ended at, if it did.
    var asking: String?

    static func environment(_ text: String) -> AppStoreEnvironment? {
        switch text.lowercased() {
        case "production", "prod", "p": return .production
        case "sandbox", "s": return .sandbox
        default: return nil
        }
    }

    /// `~/` expanded and a relative path made absolute: the config file is read from anywhere.
    static func absolutePath(_ path: String, home: String?) -> String {
        var expanded = path
        if expanded.hasPrefix("~/"), let home { expanded = home + expanded.dropFirst(1) }
        if !expanded.hasPrefix("/") { expanded = FileManager.default.currentDirectoryPath + "/" + expanded }
        return URL(fileURLWithPath: expanded).standardizedFileURL.path
    }
}

/// The questions, the file and the doctor, in that order.
struct InitFlow {
    let options: InitOptions
    let prompter: Prompter
    let loader = ConfigLoader()

    var path: String {
        options.config ?? loader.environment["IAPDESK_CONFIG"].flatMap { $0.isEmpty ? nil : $0 } ?? loader.defaultConfigPath
    }

    func run() async throws -> ExitStatus {
        let path = self.path
        let exists = FileManager.default.fileExists(atPath: path)
        // A file that cannot be read is not rewritten: what it holds would be lost.
        let file = try exists ? loader.loadFile(path: path) : ConfigFile(path: path)
        let name = options.profile ?? file.defaultProfile ?? (file.profiles.count == 1 ? file.profiles.keys.first! : "default")
        guard ConfigFileEditor.isBareName(name) else {
            throw CLIError("The profile name \(name) cannot be written: use letters, digits, - and _ (--profile NAME).", status: .usage)
        }
        let existing = file.profiles[name]
        prompter.say(existing == nil
            ? "Setting up profile \"\(name)\" in \(path)\(exists ? "" : " (a new file)")."
            : "Profile \"\(name)\" exists in \(path): its values are the defaults in brackets.")
        var answers = InitAnswers()
        do {
            try ask(existing: existing, into: &answers)
        } catch is Prompter.EndOfInput {
            let missing = missingFlags(answers, existing: existing)
            let flags = missing.map { "\($0) \(Self.placeholder($0))" }.joined(separator: " ")
            let profileFlag = options.profile.map { " --profile \($0)" } ?? ""
            throw CLIError(
                "Standard input ended before every answer was given: missing \(missing.joined(separator: ", ")); nothing written.",
                hint: "Give them as flags, such as: iapdesk init\(profileFlag) \(flags)", status: .notFound)
        }
        prompter.say("")
        prompter.say("Profile \"\(name)\":")
        for (key, value) in Self.values(answers, baseURL: options.baseURL) { prompter.say("  \(key.padding(toLength: 13, withPad: " ", startingAt: 0)) = \(value.toml)") }
        if let existing, Self.holds(existing, answers, baseURL: options.baseURL) {
            // Nothing to change (standard input closed, or Enter at every question): the file stays byte for byte.
            prompter.say("Profile \"\(name)\" in \(path) already holds these values: nothing written.")
        } else {
            if existing != nil, !options.yes, !prompter.confirm("Overwrite profile \"\(name)\" in \(path)?") {
                throw CLIError(
                    "Nothing written: profile \"\(name)\" in \(path) is as it was.",
                    hint: "Run it again with --yes added to overwrite it (same flags and answers), or with --profile NAME for another profile.",
                    status: .refused)
            }
            try write(answers, name: name, path: path, file: file)
            prompter.say("Wrote profile \"\(name)\" to \(path).")
        }
        guard !options.noDoctor else { return .success }
        prompter.say("\nChecking it (iapdesk doctor --profile \(name)):\n")
        let report = await DoctorSetup.doctor(profileName: name, configPath: path, flags: ProfileOverrides()).run()
        return DoctorSetup.print(report, json: false)
    }

    /// Each answer from its flag, or asked (with the existing profile's value as the default),
    /// into `answers` as it is given: when standard input ends, what is still nil is what is missing.
    func ask(existing: Profile?, into answers: inout InitAnswers) throws {
        answers.asking = "--issuer-id"
        answers.issuerId = try options.issuerId ?? prompter.ask("Issuer ID (App Store Connect > Users and Access > Integrations)", default: existing?.issuerId) { text -> Result<String, PromptRefusal> in
            CredentialRules.issuerIdProblem(text).map { .failure(PromptRefusal($0)) } ?? .success(text)
        }
        answers.asking = "--key-id"
        answers.keyId = try options.keyId ?? prompter.ask("Key ID of the In-App Purchase key", default: existing?.keyId) { text -> Result<String, PromptRefusal> in
            CredentialRules.keyIdProblem(text).map { .failure(PromptRefusal($0)) } ?? .success(text)
        }
        answers.asking = "--key-file"
        answers.keyFile = try keyFile(existing: existing, keyId: answers.keyId!)
        answers.asking = "--bundle-id"
        answers.bundleId = try options.bundleId ?? prompter.ask("Bundle ID", default: existing?.bundleId) { text -> Result<String, PromptRefusal> in
            CredentialRules.bundleIdProblem(text).map { .failure(PromptRefusal($0)) } ?? .success(text)
        }
        answers.asking = "--environment"
        let environment = try options.environment.flatMap(InitAnswers.environment) ?? prompter.ask(
            "Environment, Production or Sandbox", default: existing?.environment?.label ?? (prompter.isTerminal ? "Production" : nil)
        ) { text -> Result<AppStoreEnvironment, PromptRefusal> in
            InitAnswers.environment(text).map { .success($0) } ?? .failure(PromptRefusal("the environment is Production or Sandbox"))
        }
        answers.environment = environment
        answers.asking = "--app-apple-id"
        if let flag = options.appAppleId {
            answers.appAppleId = Int64(flag)
        } else if existing?.appAppleId != nil || environment == .production || prompter.isTerminal || !optionalAnswersMayBeSkipped {
            let label = environment == .production ? "App Apple ID (a number, needed to verify Production data)" : "App Apple ID (a number; Enter skips it for Sandbox)"
            do {
                answers.appAppleId = try prompter.ask(label, default: existing?.appAppleId.map(String.init)) { text -> Result<Int64?, PromptRefusal> in
                    if text.isEmpty {
                        return environment == .sandbox ? .success(nil) : .failure(PromptRefusal("Production data cannot be verified without the app's Apple ID (App Store Connect > the app > App Information)"))
                    }
                    return CredentialRules.appAppleIdProblem(text).map { .failure(PromptRefusal($0)) } ?? .success(Int64(text))
                }
            } catch is Prompter.EndOfInput where environment == .sandbox {
                // Optional in Sandbox: the end of the answers leaves it out (or as it was).
                answers.appAppleId = existing?.appAppleId
                prompter.say("  (standard input ended: \(existing?.appAppleId.map { "\($0) is kept" } ?? "left out, as Sandbox allows"))")
            }
        }
        answers.appAppleIdSettled = true
    }

    /// With every other answer given as a flag, a Sandbox profile needs no app Apple ID question.
    var optionalAnswersMayBeSkipped: Bool {
        options.issuerId != nil && options.keyId != nil && options.keyFile != nil && options.bundleId != nil && options.environment != nil
    }

    /// The key file: it must exist and hold the P-256 key; a mode other users can read is offered a fix.
    func keyFile(existing: Profile?, keyId: String) throws -> String {
        let home = loader.home
        let inspect: (String) -> Result<KeyFileInspection, PromptRefusal> = { text in
            guard !text.isEmpty else { return .failure(PromptRefusal("the path of the .p8 file is needed")) }
            let inspection = KeyFileInspection.inspect(InitAnswers.absolutePath(text, home: home))
            if let problem = inspection.problem { return .failure(PromptRefusal(problem)) }
            return .success(inspection)
        }
        let inspection: KeyFileInspection
        if let flag = options.keyFile {
            switch inspect(flag) {
            case .success(let found): inspection = found
            case .failure(let refusal): throw CLIError("--key-file: \(refusal.reason)", status: .usage)
            }
        } else {
            let beside = loader.configDirectory + "/SubscriptionKey_\(keyId).p8"
            let suggestion = existing?.keyFile ?? (FileManager.default.fileExists(atPath: beside) ? beside : nil)
            inspection = try prompter.ask("Key file (.p8)", default: suggestion, check: inspect)
        }
        if inspection.tooOpen {
            let question = "Key file \(inspection.path) is readable by other users (mode \(inspection.modeText)). Make it readable by you only (chmod 600)?"
            if options.yes || prompter.confirm(question) {
                if chmod(inspection.path, 0o600) == 0 {
                    prompter.say("  Made \(inspection.path) readable by you only (mode 600).")
                } else {
                    prompter.say("  ✗ Could not change its mode: \(String(cString: strerror(errno))). Run: chmod 600 \(inspection.path)")
                }
            } else {
                prompter.say("  Left as it is: the console and every command will refuse this key until you run: chmod 600 \(inspection.path)")
            }
        }
        return inspection.path
    }

    /// The flags a script would give for what was not answered: the question standard input
    /// ended at, and those after it that no flag or existing value settles (a Sandbox profile
    /// needs no app Apple ID).
    func missingFlags(_ answers: InitAnswers, existing: Profile?) -> [String] {
        let environment = answers.environment ?? options.environment.flatMap(InitAnswers.environment) ?? existing?.environment
        let questions: [(flag: String, answered: Bool, settled: Bool)] = [
            ("--issuer-id", answers.issuerId != nil, options.issuerId != nil || existing?.issuerId != nil),
            ("--key-id", answers.keyId != nil, options.keyId != nil || existing?.keyId != nil),
            ("--key-file", answers.keyFile != nil, options.keyFile != nil || existing?.keyFile != nil),
            ("--bundle-id", answers.bundleId != nil, options.bundleId != nil || existing?.bundleId != nil),
            ("--environment", answers.environment != nil, options.environment != nil || existing?.environment != nil),
            ("--app-apple-id", answers.appAppleIdSettled, options.appAppleId != nil || existing?.appAppleId != nil || environment == .sandbox),
        ]
        return questions.filter { !$0.answered && ($0.flag == answers.asking || !$0.settled) }.map(\.flag)
    }

    /// What a flag's value looks like, for the example in the hint.
    static func placeholder(_ flag: String) -> String {
        switch flag {
        case "--issuer-id": return "ISSUER_ID"
        case "--key-id": return "KEY_ID"
        case "--key-file": return "PATH.p8"
        case "--bundle-id": return "BUNDLE_ID"
        case "--environment": return "ENVIRONMENT"
        case "--app-apple-id": return "APP_APPLE_ID"
        default: return "VALUE"
        }
    }

    /// Whether the profile already says what the answers say.
    static func holds(_ profile: Profile, _ answers: InitAnswers, baseURL: String?) -> Bool {
        profile.issuerId == answers.issuerId && profile.keyId == answers.keyId && profile.keyFile == answers.keyFile
            && profile.bundleId == answers.bundleId && profile.environment == answers.environment && profile.appAppleId == answers.appAppleId
            && (baseURL == nil || profile.baseURL?.absoluteString == baseURL)
    }

    static func values(_ answers: InitAnswers, baseURL: String?) -> [(key: String, value: ConfigFileEditor.Value)] {
        var values: [(key: String, value: ConfigFileEditor.Value)] = [
            ("issuer_id", .string(answers.issuerId!)), ("key_id", .string(answers.keyId!)), ("key_file", .string(answers.keyFile!)),
            ("bundle_id", .string(answers.bundleId!)),
        ]
        if let id = answers.appAppleId { values.append(("app_apple_id", .integer(id))) }
        values.append(("environment", .string(answers.environment!.label)))
        if let baseURL { values.append(("base_url", .string(baseURL))) }
        return values
    }

    /// Edits the file's text, checks the result reads back as intended, then replaces the file.
    func write(_ answers: InitAnswers, name: String, path: String, file: ConfigFile) throws {
        let old = FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) } ?? ""
        let text = ConfigFileEditor.settingProfile(
            name, Self.values(answers, baseURL: options.baseURL), removing: answers.appAppleId == nil ? ["app_apple_id"] : [], in: old,
            setDefault: file.profiles.isEmpty || file.defaultProfile == nil)
        let written: Profile?
        do {
            written = try ConfigFile.parse(text, path: path, home: loader.home).profiles[name]
        } catch {
            throw CLIError("The edited config would not read back (\(error.description)); \(path) is unchanged.", hint: "Add the profile by hand (docs/configuration.md).", status: .failure)
        }
        guard let written, written.issuerId == answers.issuerId, written.keyId == answers.keyId, written.keyFile == answers.keyFile,
              written.bundleId == answers.bundleId, written.environment == answers.environment, written.appAppleId == answers.appAppleId else {
            throw CLIError("The edited config did not hold the answers as given; \(path) is unchanged.", hint: "Add the profile by hand (docs/configuration.md).", status: .failure)
        }
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        // A new file beside it, then a rename: a crash leaves the old file or the new one, never half.
        let temporary = path + ".init-\(getpid())"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw CLIError("Cannot write \(temporary).", hint: "Check the folder's permissions.", status: .configuration)
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw CLIError("Cannot replace \(path): \(reason).", status: .configuration)
        }
        if let defaultName = file.defaultProfile, defaultName != name {
            prompter.say("Note: default_profile is \"\(defaultName)\"; use --profile \(name) (or IAPDESK_PROFILE=\(name)) for this one.")
        }
    }
}
