import AppStoreServerAPI
import Crypto
import DemoServer
import Foundation
import Testing

/// `iapdesk init` driven by flags and by answers on standard input, and `iapdesk doctor`'s report and exit codes.
@Suite(.serialized) struct InitDoctorTests {
    /// A folder of its own: the config home and a key file written as App Store Connect hands it out.
    struct Workspace {
        let folder = NSTemporaryDirectory() + "iapdesk-init-\(UUID().uuidString)"
        var configHome: String { folder + "/config" }
        var configPath: String { configHome + "/iapdesk/config.toml" }
        var keyPath: String { folder + "/SubscriptionKey_\(DemoServer.keyId).p8" }

        init(key: P256.Signing.PrivateKey, mode: Int = 0o600) throws {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: keyPath, contents: Data(key.pemRepresentation.utf8), attributes: [.posixPermissions: mode])
        }

        func mode(_ path: String) throws -> Int {
            try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
        }

        func config() -> String { (try? String(contentsOfFile: configPath, encoding: .utf8)) ?? "" }

        func remove() { try? FileManager.default.removeItem(atPath: folder) }
    }

    func run(_ arguments: [String], _ workspace: Workspace, stdin: String? = nil) async throws -> CommandLineTests.Run {
        let (process, out, err) = CommandLineTests.process(arguments, environment: ["XDG_CONFIG_HOME": workspace.configHome])
        return try await CommandLineTests.launch(process, out, err, stdin: stdin)
    }

    @Test func initWithEveryFlagWritesAPrivateProfileAndChecksIt() async throws {
        let server = try await DemoServer.start()
        let workspace = try Workspace(key: server.signingKey)
        defer { workspace.remove() }
        let result = try await run([
            "init", "--issuer-id", DemoServer.issuerId, "--key-id", DemoServer.keyId, "--key-file", workspace.keyPath,
            "--bundle-id", DemoServer.bundleId, "--app-apple-id", String(DemoServer.appAppleId), "--environment", "production",
            "--base-url", server.baseURL.absoluteString,
        ], workspace)
        await server.stop()
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("Wrote profile \"default\" to \(workspace.configPath)."))
        #expect(result.stdout.contains("PASS  token in Production"))
        #expect(!result.stdout.contains("FAIL"))
        #expect(try workspace.mode(workspace.configPath) == 0o600)
        #expect(try workspace.mode(workspace.configHome + "/iapdesk") == 0o700)
        let config = workspace.config()
        #expect(config.contains("default_profile = \"default\""))
        #expect(config.contains("[profiles.default]"))
        #expect(config.contains("issuer_id = \"\(DemoServer.issuerId)\""))
        #expect(config.contains("key_file = \"\(workspace.keyPath)\""))
        #expect(config.contains("app_apple_id = \(DemoServer.appAppleId)"))
        #expect(config.contains("environment = \"Production\""))
        // The key's path is printed; its content never.
        let keyBody = server.signingKey.pemRepresentation.split(separator: "\n")[1]
        #expect(!result.stdout.contains(keyBody) && !result.stderr.contains(keyBody))
    }

    @Test func initWithoutATerminalNamesTheFlagsStillMissing() async throws {
        let workspace = try Workspace(key: P256.Signing.PrivateKey())
        defer { workspace.remove() }
        let result = try await run(["init", "--issuer-id", DemoServer.issuerId, "--environment", "Production"], workspace)
        #expect(result.status == 2)
        #expect(result.stderr.contains("missing --key-id, --key-file, --bundle-id, --app-apple-id"))
        #expect(result.stderr.contains("hint: Give them as flags"))
        #expect(!FileManager.default.fileExists(atPath: workspace.configPath))
        let bad = try await run(["init", "--key-id", "abc"], workspace)
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("a key ID is 10 capital letters and digits"))
    }

    @Test func initReadsAnswersLineByLineAndAsksAgainWithTheReason() async throws {
        let server = try await DemoServer.start()
        let workspace = try Workspace(key: server.signingKey, mode: 0o644)
        defer { workspace.remove() }
        let answers = [
            "not-a-uuid", DemoServer.issuerId, "abc", DemoServer.keyId, workspace.folder + "/missing.p8", workspace.keyPath, "y",
            "app", DemoServer.bundleId, "staging", "sandbox", "",
        ]
        let result = try await run(["init", "--base-url", server.sandboxURL.absoluteString], workspace, stdin: answers.joined(separator: "\n") + "\n")
        await server.stop()
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("✗ an issuer ID is a UUID"))
        #expect(result.stdout.contains("✗ a key ID is 10 capital letters and digits"))
        #expect(result.stdout.contains("✗ \(workspace.folder)/missing.p8 does not exist"))
        #expect(result.stdout.contains("is readable by other users (mode 644)"))
        #expect(result.stdout.contains("Made \(workspace.keyPath) readable by you only (mode 600)."))
        #expect(result.stdout.contains("✗ a bundle ID is reverse-DNS"))
        #expect(result.stdout.contains("✗ the environment is Production or Sandbox"))
        #expect(result.stdout.contains("PASS  token in Sandbox"))
        #expect(try workspace.mode(workspace.keyPath) == 0o600)
        let config = workspace.config()
        #expect(config.contains("environment = \"Sandbox\""))
        #expect(!config.contains("app_apple_id"))
        #expect(config.contains("key_id = \"\(DemoServer.keyId)\""))
    }

    @Test func initKeepsOtherProfilesAndCommentsAndAsksBeforeOverwriting() async throws {
        let workspace = try Workspace(key: P256.Signing.PrivateKey())
        defer { workspace.remove() }
        try FileManager.default.createDirectory(atPath: workspace.configHome + "/iapdesk", withIntermediateDirectories: true)
        let original = """
            # team settings: keep me
            default_profile = "support"

            [profiles.support]
            issuer_id = "11111111-2222-4333-8444-555555555555"
            key_id = "OLDKEY0001"
            key_file = "/old.p8"
            bundle_id = "com.example.app"
            environment = "Sandbox"
            read_only = true

            [profiles.other]   # someone else's
            issuer_id = "11111111-2222-4333-8444-555555555555"
            key_id = "OTHERKEY01"
            key_file = "/other.p8"
            bundle_id = "com.example.other"
            environment = "Sandbox"

            """
        try original.write(toFile: workspace.configPath, atomically: true, encoding: .utf8)
        let flags = [
            "init", "--key-id", DemoServer.keyId, "--key-file", workspace.keyPath, "--no-doctor",
        ]
        // Enter keeps the issuer ID, bundle ID, environment and app Apple ID shown in brackets; "n" keeps the file.
        let declined = try await run(flags, workspace, stdin: "\n\n\n\nn\n")
        #expect(declined.status == 9)
        #expect(declined.stdout.contains("Profile \"support\" exists in \(workspace.configPath)"))
        #expect(declined.stdout.contains("[11111111-2222-4333-8444-555555555555]"))
        #expect(declined.stderr.contains("Nothing written"))
        #expect(workspace.config() == original)
        let accepted = try await run(flags + ["--yes"], workspace, stdin: "\n\n\n\n")
        #expect(accepted.status == 0, "\(accepted.stdout)\n\(accepted.stderr)")
        let config = workspace.config()
        #expect(config.contains("# team settings: keep me"))
        #expect(config.contains("[profiles.other]   # someone else's"))
        #expect(config.contains("key_id = \"OTHERKEY01\""))
        #expect(config.contains("key_id = \"\(DemoServer.keyId)\""))
        #expect(!config.contains("OLDKEY0001"))
        #expect(config.contains("read_only = true"))
        #expect(try workspace.mode(workspace.configPath) == 0o600)
    }

    @Test func initWithAnExistingProfileAndStandardInputClosedSaysWhatItDid() async throws {
        let workspace = try Workspace(key: P256.Signing.PrivateKey())
        defer { workspace.remove() }
        let flags = [
            "--issuer-id", DemoServer.issuerId, "--key-id", DemoServer.keyId, "--key-file", workspace.keyPath,
            "--bundle-id", DemoServer.bundleId, "--environment", "Sandbox", "--no-doctor",
        ]
        let first = try await run(["init"] + flags, workspace)
        #expect(first.status == 0, "\(first.stdout)\n\(first.stderr)")
        let written = workspace.config()

        // Standard input closed: every bracketed value is kept, as Enter would, and nothing changes.
        let again = try await run(["init", "--no-doctor"], workspace)
        #expect(again.status == 0, "\(again.stdout)\n\(again.stderr)")
        #expect(again.stdout.contains("(standard input ended: \(DemoServer.keyId) is kept)"))
        #expect(again.stdout.contains("Profile \"default\" in \(workspace.configPath) already holds these values: nothing written."))
        #expect(!again.stderr.contains("missing ."))
        #expect(workspace.config() == written)

        // A changed value needs the overwrite confirmed; the refusal says how to give it.
        let changed = try await run(["init", "--key-id", "ZZZZZZZZZZ", "--no-doctor"], workspace)
        #expect(changed.status == 9)
        #expect(changed.stderr.contains("Nothing written: profile \"default\" in \(workspace.configPath) is as it was."))
        #expect(changed.stderr.contains("Run it again with --yes added to overwrite it"))
        #expect(workspace.config() == written)
        let confirmed = try await run(["init", "--key-id", "ZZZZZZZZZZ", "--no-doctor", "--yes"], workspace)
        #expect(confirmed.status == 0, "\(confirmed.stdout)\n\(confirmed.stderr)")
        #expect(workspace.config().contains("key_id = \"ZZZZZZZZZZ\""))
        #expect(workspace.config().contains("bundle_id = \"\(DemoServer.bundleId)\""))

        // Another profile has no defaults: every flag still missing is named, with a value to replace.
        let other = try await run(["init", "--profile", "other", "--bundle-id", DemoServer.bundleId], workspace)
        #expect(other.status == 2)
        #expect(other.stderr.contains("missing --issuer-id, --key-id, --key-file, --environment, --app-apple-id; nothing written."))
        #expect(other.stderr.contains("such as: iapdesk init --profile other --issuer-id ISSUER_ID --key-id KEY_ID --key-file PATH.p8 --environment ENVIRONMENT --app-apple-id APP_APPLE_ID"))
    }

    @Test func theConsoleWithNoProfileAndNoTerminalPointsToInit() async throws {
        // The offer needs a terminal to answer it; a script gets the error, which names init.
        let workspace = try Workspace(key: P256.Signing.PrivateKey())
        defer { workspace.remove() }
        let result = try await run([], workspace)
        #expect(result.status == 3)
        #expect(result.stderr.contains("Run iapdesk init to set it up"))
        #expect(!result.stdout.contains("No profile yet"))
    }

    @Test func doctorAgainstTheDemoPassesAndPrintsJSON() async throws {
        let workspace = try Workspace(key: P256.Signing.PrivateKey())
        defer { workspace.remove() }
        let text = try await run(["doctor", "--demo"], workspace)
        #expect(text.status == 0, "\(text.stdout)\n\(text.stderr)")
        #expect(text.stdout.contains("PASS  token in Production"))
        #expect(text.stdout.contains("PASS  token in Sandbox"))
        #expect(text.stdout.contains("12 checks: 12 pass."))
        let json = try await run(["doctor", "--demo", "--json"], workspace)
        #expect(json.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["worst"] as? String == "pass")
        #expect((object["checks"] as? [[String: Any]])?.count == 12)
    }

    @Test func doctorAgainstTheDemoRefusesAKeyIDThatIsNotTheKeys() async throws {
        let workspace = try Workspace(key: P256.Signing.PrivateKey())
        defer { workspace.remove() }
        let probe = try await run(["doctor", "--demo", "--key-id", "ZZZZZZZZZZ"], workspace)
        #expect(probe.status == 6, "\(probe.stdout)\n\(probe.stderr)")
        #expect(probe.stdout.contains("FAIL  token in Production"))
        #expect(probe.stdout.contains("a key ID that is not this key's"))
        let otherIssuer = try await run(["doctor", "--demo", "--issuer-id", "00000000-0000-0000-0000-000000000000"], workspace)
        #expect(otherIssuer.status == 6)
        #expect(otherIssuer.stdout.contains("FAIL  token in Sandbox"))
        #expect(otherIssuer.stdout.contains("refused (HTTP 401)"))
    }

    @Test func doctorExitCodesFollowTheFirstFailure() async throws {
        let server = try await DemoServer.start()
        // Another team's key: Apple answers 401.
        let workspace = try Workspace(key: P256.Signing.PrivateKey())
        defer { workspace.remove() }
        let refused = try await run([
            "doctor", "--base-url", server.baseURL.absoluteString, "--environment", "Production", "--issuer-id", DemoServer.issuerId,
            "--key-id", DemoServer.keyId, "--key-file", workspace.keyPath, "--bundle-id", DemoServer.bundleId, "--app-apple-id", "1",
        ], workspace)
        await server.stop()
        #expect(refused.status == 6, "\(refused.stdout)\n\(refused.stderr)")
        #expect(refused.stdout.contains("FAIL  token in Production"))
        #expect(refused.stdout.contains("refused (HTTP 401)"))
        #expect(refused.stdout.contains("WARN  config file"))
        try FileManager.default.createDirectory(atPath: workspace.configHome + "/iapdesk", withIntermediateDirectories: true)
        try "[profiles.broken\n".write(toFile: workspace.configPath, atomically: true, encoding: .utf8)
        let broken = try await run(["doctor"], workspace)
        #expect(broken.status == 3)
        #expect(broken.stdout.contains("FAIL  config file"))
        #expect(broken.stdout.contains("Cannot read \(workspace.configPath)"))
    }
}
