import AppStoreServerAPI
@testable import DeskCore
import Foundation
import Testing

@Suite struct ConfigurationTests {
    let sample = """
        default_profile = "prod"

        [profiles.prod]
        issuer_id = "57246542-96fe-1a63-e053-0824d011072a"
        key_id = "2X9R4HXF34"
        key_file = "~/keys/SubscriptionKey_2X9R4HXF34.p8"
        bundle_id = "com.example.app"
        app_apple_id = 1234567890
        environment = "Production"
        read_only = true
        theme = "light"
        root_certs = ["~/certs/extra.der"]

        [profiles.sandbox]
        issuer_id = "57246542-96fe-1a63-e053-0824d011072a"
        key_id = "2X9R4HXF34"
        key_file = "/keys/k.p8"
        bundle_id = "com.example.app"
        environment = "sandbox"
        base_url = "http://127.0.0.1:8080"
        """

    @Test func parsesProfiles() throws {
        let file = try ConfigFile.parse(sample, path: "config.toml", home: "/home/agent")
        #expect(file.defaultProfile == "prod")
        let prod = try #require(file.profiles["prod"])
        #expect(prod.keyFile == "/home/agent/keys/SubscriptionKey_2X9R4HXF34.p8")
        #expect(prod.appAppleId == 1_234_567_890)
        #expect(prod.environment == .production)
        #expect(prod.readOnly)
        #expect(prod.theme == "light")
        #expect(prod.rootCerts == ["/home/agent/certs/extra.der"])
        let sandbox = try #require(file.profiles["sandbox"])
        #expect(sandbox.environment == .sandbox)
        #expect(sandbox.baseURL?.absoluteString == "http://127.0.0.1:8080")
        #expect(sandbox.missingForRequests.isEmpty)
    }

    @Test func variablesOverrideFileAndFlagsOverrideVariables() throws {
        let file = try ConfigFile.parse(sample, path: "config.toml", home: "/h")
        let loader = ConfigLoader(environment: ["IAPDESK_PROFILE": "sandbox", "IAPDESK_BUNDLE_ID": "com.from.env", "IAPDESK_READ_ONLY": "yes"])
        var flags = ProfileOverrides()
        flags.environment = .production
        let profile = try loader.resolve(file: file, name: nil, flags: flags)
        #expect(profile.name == "sandbox")
        #expect(profile.bundleId == "com.from.env")
        #expect(profile.readOnly)
        #expect(profile.environment == .production)
        let explicit = try loader.resolve(file: file, name: "prod", flags: ProfileOverrides())
        #expect(explicit.name == "prod")
    }

    @Test func advancedCommerceIsOffUnlessTheProfileSaysSo() throws {
        let file = try ConfigFile.parse(sample + "\nadvanced_commerce = true\n", path: "config.toml")
        #expect(try #require(file.profiles["sandbox"]).advancedCommerce)
        #expect(try #require(file.profiles["prod"]).advancedCommerce == false)
        let resolved = try ConfigLoader(environment: [:]).resolve(file: file, name: "sandbox", flags: ProfileOverrides())
        #expect(resolved.advancedCommerce)
        #expect(throws: ConfigurationError.invalidValue(source: "c.toml: profiles.x.advanced_commerce", detail: "must be true or false")) {
            try ConfigFile.parse("[profiles.x]\nadvanced_commerce = \"yes\"\n", path: "c.toml")
        }
    }

    @Test func errorsNameTheProblem() {
        #expect(throws: ConfigurationError.self) { try ConfigFile.parse("[profiles.x]\nissuer_id = 5\n") }
        do {
            _ = try ConfigFile.parse("[profiles.x]\nenvironment = \"Staging\"\n", path: "c.toml")
        } catch {
            #expect(error.description.contains("Production or Sandbox"))
        }
        do {
            _ = try ConfigFile.parse("[profiles.x]\nkey_fiel = \"/k\"\n", path: "c.toml")
        } catch {
            #expect(error.description.contains("unknown key profiles.x.key_fiel"))
        }
        do {
            _ = try ConfigFile.parse("this is = = not toml", path: "c.toml")
        } catch {
            #expect(error.description.hasPrefix("Cannot read c.toml: line 1"))
        }
        let file = try? ConfigFile.parse(sample, path: "config.toml")
        #expect(throws: ConfigurationError.unknownProfile("nope", known: ["prod", "sandbox"], path: "config.toml")) {
            try ConfigLoader(environment: [:]).resolve(file: file!, name: "nope", flags: ProfileOverrides())
        }
        #expect(throws: ConfigurationError.self) {
            try ProfileOverrides.fromEnvironment(["IAPDESK_APP_APPLE_ID": "twelve"])
        }
    }

    @Test func retentionLocalesAreCheckedLocales() throws {
        let file = try ConfigFile.parse("[profiles.x]\nretention_locales = [\"en-US\", \"fr-FR\", \"en-US\"]\n", path: "c.toml")
        #expect(file.profiles["x"]?.retentionLocales == ["en-US", "fr-FR"])
        // Written one way, so one locale is asked once: language lowercase, script capitalised, region uppercase.
        let cased = try ConfigFile.parse("[profiles.x]\nretention_locales = [\"EN-us\", \"en-US\", \"zh-hans-cn\"]\n", path: "c.toml")
        #expect(cased.profiles["x"]?.retentionLocales == ["en-US", "zh-Hans-CN"])
        #expect(try ConfigFile.parse("[profiles.x]\n", path: "c.toml").profiles["x"]?.retentionLocales == [])
        #expect {
            _ = try ConfigFile.parse("[profiles.x]\nretention_locales = [\"english\"]\n", path: "c.toml")
        } throws: { error in
            "\(error)".contains("c.toml: profiles.x.retention_locales must be a list of locales") && "\(error)".contains("\"english\" is not one")
        }
        #expect {
            _ = try ConfigFile.parse("[profiles.x]\nretention_locales = \"en-US\"\n", path: "c.toml")
        } throws: { error in
            "\(error)".contains("retention_locales must be a list of locales")
        }
    }

    @Test func timeoutFromFileVariableAndFlag() throws {
        let file = try ConfigFile.parse("[profiles.a]\ntimeout = 90\n[profiles.b]\ntimeout = 2.5\n[profiles.c]\n", path: "c.toml")
        #expect(file.profiles["a"]?.timeout == 90)
        #expect(file.profiles["b"]?.timeout == 2.5)
        #expect(file.profiles["c"]?.timeout == nil)
        #expect(file.profiles["c"]?.effectiveTimeout == Profile.defaultTimeout)
        for bad in ["timeout = 0", "timeout = -5", "timeout = \"60\"", "timeout = 100000"] {
            #expect(throws: ConfigurationError.self, "\(bad)") { try ConfigFile.parse("[profiles.x]\n\(bad)\n", path: "c.toml") }
        }
        let loader = ConfigLoader(environment: ["IAPDESK_TIMEOUT": "15"])
        #expect(try loader.resolve(file: file, name: "a", flags: ProfileOverrides()).timeout == 15)
        var flags = ProfileOverrides()
        flags.timeout = try ProfileParsing.timeoutFlag(4)
        #expect(try loader.resolve(file: file, name: "a", flags: flags).timeout == 4)
        #expect(throws: ConfigurationError.self) { try ProfileOverrides.fromEnvironment(["IAPDESK_TIMEOUT": "soon"]) }
        #expect(throws: ConfigurationError.self) { try ProfileParsing.timeoutFlag(0) }
    }

    @Test func missingSettingsAreListed() {
        var profile = Profile(name: "p")
        profile.issuerId = "i"
        #expect(profile.missingForRequests.count == 4)
        #expect(profile.missingForRequests.contains { $0.hasPrefix("key_file") })
    }

    @Test func xdgDirectories() {
        let loader = ConfigLoader(environment: ["HOME": "/home/a", "XDG_CONFIG_HOME": "/cfg"])
        #expect(loader.defaultConfigPath == "/cfg/iapdesk/config.toml")
        #expect(ConfigLoader(environment: ["HOME": "/home/a"]).defaultConfigPath == "/home/a/.config/iapdesk/config.toml")
        #expect(ConfigLoader(environment: ["HOME": "/home/a"]).stateDirectory == "/home/a/.local/state/iapdesk")
    }

    @Test func displayFormats() {
        #expect(DisplayFormat.money(9990, "USD") == "9.99 USD")
        #expect(DisplayFormat.money(10000, "EUR") == "10.00 EUR")
        #expect(DisplayFormat.money(0, "USD") == "0.00 USD")
        #expect(DisplayFormat.percentage(50000) == "50%")
        #expect(DisplayFormat.percentage(67500) == "67.5%")
        #expect(DisplayFormat.date(Date(timeIntervalSince1970: 1_700_000_000)) == "2023-11-14 22:13 UTC")
        #expect(DisplayFormat.relative(Date(timeIntervalSince1970: 1000 + 3 * 86_400), now: Date(timeIntervalSince1970: 1000)) == "in 3 days")
    }
}
