@testable import DeskCore
import Foundation
import Testing

/// What the console shows with no profile, decided before any terminal is touched.
@Suite struct FirstRunOfferTests {
    @Test func noFileOffersTheSetUpAndSaysWhereItLooked() throws {
        let offer = try #require(FirstRunOffer.decide(
            file: ConfigFile(path: "/cfg/iapdesk/config.toml"), fileExists: false, resolved: Profile(name: "default"), configPath: "/cfg/iapdesk/config.toml"))
        #expect(offer.lines.contains("No config file at /cfg/iapdesk/config.toml."))
        #expect(offer.lines.contains("No profile yet: Enter to set one up, d for the demo, q to quit."))
        #expect(offer.lines.contains { $0.contains("$XDG_CONFIG_HOME/iapdesk/config.toml") })
    }

    @Test func severalProfilesWithoutADefaultAreNamed() throws {
        var file = ConfigFile(path: "/c.toml")
        file.profiles = ["a": Profile(name: "a"), "b": Profile(name: "b")]
        let offer = try #require(FirstRunOffer.decide(file: file, fileExists: true, resolved: Profile(name: "default"), configPath: "/c.toml"))
        #expect(offer.lines.contains { $0.contains("has profiles a, b but no default_profile") })
    }

    @Test func aProfileFromTheFileOrCompleteFromFlagsOpensTheConsole() {
        var file = ConfigFile(path: "/c.toml")
        file.profiles = ["only": Profile(name: "only")]
        // An incomplete profile from the file keeps its "missing" error.
        #expect(FirstRunOffer.decide(file: file, fileExists: true, resolved: Profile(name: "only"), configPath: "/c.toml") == nil)
        var flags = Profile(name: "default")
        flags.issuerId = "57246542-96fe-1a63-e053-0824d011072a"
        flags.keyId = "2X9R4HXF34"
        flags.keyFile = "/k.p8"
        flags.bundleId = "com.example.app"
        flags.environment = .sandbox
        #expect(FirstRunOffer.decide(file: ConfigFile(path: "/c.toml"), fileExists: false, resolved: flags, configPath: "/c.toml") == nil)
    }

    @Test func keysChoose() {
        #expect(FirstRunOffer.choice(forByte: 0x0D) == .setUp)
        #expect(FirstRunOffer.choice(forByte: UInt8(ascii: "d")) == .demo)
        #expect(FirstRunOffer.choice(forByte: UInt8(ascii: "q")) == .quit)
        #expect(FirstRunOffer.choice(forByte: UInt8(ascii: "x")) == nil)
    }
}
