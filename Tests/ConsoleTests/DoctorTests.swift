import AppStoreServerAPI
@testable import Console
import Crypto
import DemoServer
@testable import DeskCore
import Foundation
import Testing

/// One demo server for the checks that need no fault: a server per test would load a busy 2-core machine for nothing.
enum SharedDoctorDemo {
    static let server = Task { try await DemoServer.start() }
}

/// The set-up checks against the demo server, with each fault a real set-up can have.
/// Serialized: each check starts servers and sends requests, and the console's timing tests run beside.
@Suite(.serialized) struct DoctorTests {
    /// The report for the demo's profile as `change` leaves it, on a clock `clockOffset` seconds off.
    func report(faults: DemoFaults = DemoFaults(), clockOffset: TimeInterval = 0, _ change: (inout DoctorFixture) throws -> Void = { _ in })
        async throws -> DoctorReport {
        var configuration = DemoServer.Configuration()
        configuration.faults = faults
        let server = faults.isEmpty ? try await SharedDoctorDemo.server.value : try await DemoServer.start(configuration)
        var fixture = try DoctorFixture(server)
        defer { fixture.remove() }
        try change(&fixture)
        let report = await fixture.doctor(server, now: { Date().addingTimeInterval(clockOffset) }).run()
        if !faults.isEmpty { await server.stop() }
        return report
    }

    @Test func aGoodProfilePassesEveryCheck() async throws {
        let report = try await report()
        // The demo's Date header comes from a cache a timer refreshes on the concurrency pool, which
        // a busy test run can hold up for tens of seconds: then this machine only looks ahead.
        let clock = try #require(report.check("clock"))
        #expect(clock.status == .pass || (clock.status == .warn && clock.detail.contains("ahead")), "\(report.lines())")
        #expect(report.checks.filter { $0.name != "clock" }.allSatisfy { $0.status == .pass }, "\(report.lines())")
        #expect(report.checks.map(\.name) == [
            "config file", "issuer ID", "key ID", "key file", "private key", "bundle ID", "app Apple ID", "root certificates", "clock",
            "token in Production", "token in Sandbox", "bundle ID at Apple",
        ])
        #expect(report.check("root certificates")?.detail == "Apple Root CA - G3 (built in) and 1 from root_certs")
        #expect(report.checks.filter { $0.name != "clock" }.allSatisfy { $0.fix == nil })
    }

    @Test func theWholeRunKeepsToItsDeadlineAndSaysWhatDidNotAnswer() async throws {
        let server = try await SharedDoctorDemo.server.value
        let fixture = try DoctorFixture(server)
        defer { fixture.remove() }
        let doctor = Doctor(
            profile: fixture.profile, config: nil, endpoints: [server.serverEnvironment(.production), server.serverEnvironment(.sandbox)],
            transport: Silent(), timeout: 1)
        let hangingStore = Doctor.ServerCheck(name: "store", fix: "Check the store's server.") {
            try? await Task.sleep(for: .seconds(3600))
            return DoctorCheck("store", .pass, "answered late")
        }
        let started = ContinuousClock.now
        let report = await doctor.run(alongside: [hangingStore])
        let elapsed = ContinuousClock.now - started
        // The bound leaves room for a busy machine; a deadline not kept would take an hour.
        #expect(elapsed >= .milliseconds(950) && elapsed < .seconds(60), "took \(elapsed)")
        for name in ["token in Production", "token in Sandbox", "store"] {
            let check = try #require(report.check(name))
            #expect(check.status == .fail)
            #expect(check.detail.contains("within the doctor's 1 s deadline"), "\(check.detail)")
            #expect(check.fix?.contains("--timeout") == true)
        }
        #expect(report.check("clock")?.status == .skip)
        #expect(report.checks.last?.name == "store")
    }

    @Test func aKeyTheServerDoesNotKnowIsRefusedWithEveryCause() async throws {
        let report = try await report { fixture in
            // A real P-256 key, but not the one the demo expects: what a revoked key or another team's key gives.
            _ = FileManager.default.createFile(
                atPath: fixture.keyPath, contents: Data(P256.Signing.PrivateKey().pemRepresentation.utf8), attributes: [.posixPermissions: 0o600])
        }
        let production = try #require(report.check("token in Production"))
        #expect(production.status == .fail)
        #expect(production.failure == .unauthorized)
        #expect(production.detail.contains("refused (HTTP 401)"))
        #expect(production.detail.contains("revoked key or a key of another team"))
        #expect(production.detail.contains("wrong issuer ID"))
        #expect(report.check("token in Sandbox")?.status == .fail)
        #expect(report.check("bundle ID at Apple")?.status == .skip)
        #expect(report.check("private key")?.status == .pass)
        #expect(report.firstFailure?.name == "token in Production")
    }

    @Test func aWrongIssuerIsRefused() async throws {
        let report = try await report { $0.profile.issuerId = "00000000-0000-4000-8000-000000000000" }
        #expect(report.check("issuer ID")?.status == .pass)
        #expect(report.check("token in Production")?.status == .fail)
        #expect(report.check("token in Sandbox")?.detail.contains("wrong issuer ID") == true)
    }

    @Test func productionRefusingWhileSandboxAcceptsIsExplainedAsAnUnreleasedApp() async throws {
        var faults = DemoFaults()
        faults.rejectTokens = [.production]
        let report = try await report(faults: faults)
        let production = try #require(report.check("token in Production"))
        #expect(production.status == .fail)
        #expect(production.detail.contains("Sandbox accepts the same token"))
        #expect(production.detail.contains("no version released"))
        #expect(production.fix?.contains("environment = \"Sandbox\"") == true)
        #expect(report.check("token in Sandbox")?.status == .pass)
        #expect(report.check("bundle ID at Apple")?.detail.contains("known in Sandbox") == true)
    }

    @Test func anAppAppleDoesNotKnowFailsTheBundleCheck() async throws {
        var faults = DemoFaults()
        faults.appNotFound = true
        let report = try await report(faults: faults)
        #expect(report.check("token in Production")?.status == .pass)
        let app = try #require(report.check("bundle ID at Apple"))
        #expect(app.status == .fail)
        #expect(app.detail.hasPrefix("bundle ID not found"))
        #expect(app.detail.contains("4040003"))
    }

    @Test func aClockTwoMinutesAheadFailsAndExplainsTheRefusedTokens() async throws {
        let report = try await report(clockOffset: 120)
        let clock = try #require(report.check("clock"))
        #expect(clock.status == .fail)
        // The skew is measured half-way through the request: on a busy machine that is seconds off, never a minute.
        #expect(clock.detail.contains("s ahead of the server's"))
        let seconds = try #require(clock.detail.split(separator: " ").first { Int($0) != nil }.flatMap { Int($0) })
        #expect((90...150).contains(seconds), "\(clock.detail)")
        #expect(clock.fix?.contains("timedatectl") == true)
        let token = try #require(report.check("token in Production"))
        #expect(token.status == .fail)
        #expect(token.detail.contains("issued in the future"))
    }

    @Test func aClockHalfAMinuteBehindWarns() async throws {
        let report = try await report(clockOffset: -30)
        #expect(report.check("clock")?.status == .warn)
        #expect(report.check("clock")?.detail.contains("behind") == true)
        #expect(report.check("token in Production")?.status == .pass)
        #expect(report.worst == .warn)
    }

    @Test func aKeyFileOthersCanReadFailsWithTheFixButIsStillTried() async throws {
        let report = try await report { fixture in
            chmod(fixture.keyPath, 0o644)
        }
        let file = try #require(report.check("key file"))
        #expect(file.status == .fail)
        #expect(file.detail.contains("mode 644"))
        #expect(file.fix?.hasPrefix("chmod 600 /") == true)
        #expect(file.fix?.hasSuffix("SubscriptionKey_\(DemoServer.keyId).p8") == true)
        #expect(report.check("private key")?.status == .pass)
        #expect(report.check("token in Production")?.status == .pass)
    }

    @Test func aKeyOfTheWrongCurveAndAMissingKeyFail() async throws {
        let p384 = try await report { fixture in
            _ = FileManager.default.createFile(
                atPath: fixture.keyPath, contents: Data(P384.Signing.PrivateKey().pemRepresentation.utf8), attributes: [.posixPermissions: 0o600])
        }
        #expect(p384.check("private key")?.status == .fail)
        #expect(p384.check("private key")?.detail.contains("P-384") == true)
        #expect(p384.check("token in Production")?.status == .skip)
        let missing = try await report { $0.profile.keyFile = $0.folder + "/nowhere.p8" }
        #expect(missing.check("key file")?.status == .fail)
        #expect(missing.check("key file")?.detail.hasSuffix("does not exist") == true)
        #expect(missing.check("private key")?.status == .skip)
    }

    @Test func malformedIDsFailBeforeAnythingIsSent() async throws {
        let report = try await report { fixture in
            fixture.profile.keyId = "abc"
            fixture.profile.issuerId = "not-a-uuid"
            fixture.profile.bundleId = "app"
            fixture.profile.appAppleId = nil
        }
        #expect(report.check("key ID")?.status == .fail)
        #expect(report.check("key ID")?.detail.contains("10 capital letters and digits") == true)
        #expect(report.check("issuer ID")?.detail.contains("is a UUID") == true)
        #expect(report.check("bundle ID")?.status == .fail)
        #expect(report.check("app Apple ID")?.status == .warn)
        #expect(report.firstFailure?.name == "issuer ID")
    }

    @Test func aRootCertificateThatIsNotDERFails() async throws {
        let report = try await report { fixture in
            let path = fixture.folder + "/root.pem"
            try Data("-----BEGIN CERTIFICATE-----\nnot der\n-----END CERTIFICATE-----\n".utf8).write(to: URL(fileURLWithPath: path))
            fixture.profile.rootCerts = [path, fixture.folder + "/missing.der"]
        }
        let roots = try #require(report.check("root certificates"))
        #expect(roots.status == .fail)
        #expect(roots.detail.contains("root.pem is not a DER X.509 certificate"))
        #expect(roots.detail.contains("missing.der cannot be read"))
    }

    @Test func theReportNeverHoldsTheKeyAndEncodesForScripts() async throws {
        var configuration = DemoServer.Configuration()
        configuration.faults.rejectTokens = [.production, .sandbox]
        let server = try await DemoServer.start(configuration)
        let fixture = try DoctorFixture(server)
        defer { fixture.remove() }
        let report = await fixture.doctor(server).run()
        await server.stop()
        let pem = server.signingKey.pemRepresentation
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }
        let json = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
        let text = report.lines().joined(separator: "\n")
        for line in body {
            #expect(!json.contains(line))
            #expect(!text.contains(line))
        }
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["worst"] as? String == "fail")
        let checks = try #require(object["checks"] as? [[String: Any]])
        let token = try #require(checks.first { $0["name"] as? String == "token in Sandbox" })
        #expect(token["status"] as? String == "fail")
        #expect(token["fix"] is String)
        #expect(Set(token.keys) == ["name", "status", "detail", "fix"])
    }

    @Test func credentialRulesNameWhatIsWrong() {
        #expect(CredentialRules.issuerIdProblem("57246542-96fe-1a63-e053-0824d011072a") == nil)
        #expect(CredentialRules.issuerIdProblem("57246542") != nil)
        #expect(CredentialRules.keyIdProblem("2X9R4HXF34") == nil)
        #expect(CredentialRules.keyIdProblem("2x9r4hxf34") != nil)
        #expect(CredentialRules.keyIdProblem("2X9R4HXF3") != nil)
        #expect(CredentialRules.bundleIdProblem("com.example.app") == nil)
        #expect(CredentialRules.bundleIdProblem("com..app") != nil)
        #expect(CredentialRules.bundleIdProblem("com.exa mple") != nil)
        #expect(CredentialRules.appAppleIdProblem("1234567890") == nil)
        #expect(CredentialRules.appAppleIdProblem("0") != nil)
        #expect(CredentialRules.appAppleIdProblem("12ab") != nil)
    }

    @Test func httpDatesAreRead() {
        #expect(TokenProbe.httpDate("Sun, 06 Nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        #expect(TokenProbe.httpDate("yesterday") == nil)
    }
}

/// A server that never answers: every request waits until it is cancelled.
private struct Silent: HTTPTransport {
    func send(_ request: AppStoreServerAPI.HTTPRequest) async throws -> HTTPResponse {
        try await Task.sleep(for: .seconds(3600))
        throw CancellationError()
    }
}
