@testable import DeskCore
import Foundation
import Testing

/// `iapdesk init` writes one profile and keeps the rest of the file as the user wrote it.
@Suite struct ConfigFileEditorTests {
    let values: [(key: String, value: ConfigFileEditor.Value)] = [
        ("issuer_id", .string("57246542-96fe-1a63-e053-0824d011072a")), ("key_id", .string("2X9R4HXF34")),
        ("key_file", .string("/keys/SubscriptionKey_2X9R4HXF34.p8")), ("bundle_id", .string("com.example.app")),
        ("app_apple_id", .integer(1_234_567_890)), ("environment", .string("Production")),
    ]

    let existing = """
        # My iapdesk profiles
        default_profile = "sandbox"

        [profiles.sandbox]   # for testing
        issuer_id = "11111111-2222-4333-8444-555555555555"
        key_id = "OLDKEY0001"   # the old key
        key_file = "~/old.p8"
        bundle_id = "com.example.app"
        environment = "Sandbox"
        read_only = true
        # the team's production profile follows
        
        [profiles.production]
        issuer_id = "11111111-2222-4333-8444-555555555555"
        key_id = "PRODKEY001"
        key_file = "~/prod.p8"
        bundle_id = "com.example.app"
        app_apple_id = 42
        environment = "Production"

        [keys]
        "list.down" = ["n", "Down"]
        """

    @Test func aNewFileGetsTheProfileAndADefault() throws {
        let text = ConfigFileEditor.settingProfile("main", values, in: "", setDefault: true)
        #expect(text.hasPrefix("default_profile = \"main\"\n\n[profiles.main]\nissuer_id = "))
        let file = try ConfigFile.parse(text)
        #expect(file.defaultProfile == "main")
        let profile = try #require(file.profiles["main"])
        #expect(profile.keyId == "2X9R4HXF34")
        #expect(profile.appAppleId == 1_234_567_890)
        #expect(profile.environment == .production)
    }

    @Test func replacingAProfileKeepsCommentsOtherProfilesKeysAndItsOtherSettings() throws {
        let text = ConfigFileEditor.settingProfile("sandbox", values, in: existing, setDefault: false)
        let file = try ConfigFile.parse(text)
        let sandbox = try #require(file.profiles["sandbox"])
        #expect(sandbox.keyId == "2X9R4HXF34")
        #expect(sandbox.keyFile == "/keys/SubscriptionKey_2X9R4HXF34.p8")
        #expect(sandbox.appAppleId == 1_234_567_890)
        #expect(sandbox.environment == .production)
        // What init does not ask for stays.
        #expect(sandbox.readOnly)
        #expect(file.profiles["production"]?.keyId == "PRODKEY001")
        #expect(file.keyBindings["list.down"] == ["n", "Down"])
        #expect(file.defaultProfile == "sandbox")
        for comment in ["# My iapdesk profiles", "[profiles.sandbox]   # for testing", "# the team's production profile follows"] {
            #expect(text.contains(comment))
        }
        #expect(!text.contains("OLDKEY0001"))
        // The new key lands inside its table, before the comment that leads into the next one.
        let lines = text.components(separatedBy: "\n")
        let added = try #require(lines.firstIndex(of: "app_apple_id = 1234567890"))
        let comment = try #require(lines.firstIndex(of: "# the team's production profile follows"))
        #expect(added < comment)
        #expect(lines.filter { $0.hasPrefix("key_id") }.count == 2)
    }

    @Test func aNewProfileIsAppendedAndTheDefaultLeftAlone() throws {
        let text = ConfigFileEditor.settingProfile("staging", values, in: existing, setDefault: true)
        #expect(text.hasPrefix(existing))
        let file = try ConfigFile.parse(text)
        #expect(file.profiles.keys.sorted() == ["production", "sandbox", "staging"])
        #expect(file.defaultProfile == "sandbox")
        #expect(text.hasSuffix("environment = \"Production\"\n"))
    }

    @Test func removingAKeyAndQuotingValues() throws {
        let withQuotes: [(key: String, value: ConfigFileEditor.Value)] = [("key_file", .string("/keys/a \"b\" \\ c.p8"))]
        let text = ConfigFileEditor.settingProfile("production", withQuotes, removing: ["app_apple_id"], in: existing, setDefault: false)
        let file = try ConfigFile.parse(text)
        let production = try #require(file.profiles["production"])
        #expect(production.keyFile == "/keys/a \"b\" \\ c.p8")
        #expect(production.appAppleId == nil)
        #expect(file.profiles["sandbox"]?.keyId == "OLDKEY0001")
    }

    @Test func quotedHeadersAreFound() throws {
        let text = ConfigFileEditor.settingProfile("qa", [("key_id", .string("NEWKEY0001"))], in: "[profiles.\"qa\"]\nkey_id = \"OLDKEY0001\"\n", setDefault: false)
        #expect(try ConfigFile.parse(text).profiles["qa"]?.keyId == "NEWKEY0001")
        #expect(!text.contains("[profiles.qa]"))
    }

    @Test func profileNames() {
        #expect(ConfigFileEditor.isBareName("prod-eu_1"))
        #expect(!ConfigFileEditor.isBareName("prod eu"))
        #expect(!ConfigFileEditor.isBareName(""))
    }
}
