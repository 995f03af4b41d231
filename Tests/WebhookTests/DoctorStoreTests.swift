import Foundation
import Testing

/// `iapdesk doctor` checks the store the profile names: a team's server that answers, one that
/// does not, and a file store not made yet; the password is never printed.
@Suite struct DoctorStoreTests {
    static func doctor(store: String?) async throws -> (status: Int32, stdout: String) {
        let folder = NSTemporaryDirectory() + "iapdesk-doctor-store-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let process = Process()
        process.executableURL = ListenProcessTests.binary
        process.arguments = ["doctor"]
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = folder + "/config"
        environment["XDG_DATA_HOME"] = folder + "/data"
        environment["XDG_STATE_HOME"] = folder + "/state"
        environment["IAPDESK_STORE"] = store
        environment["IAPDESK_STORE_PATH"] = nil
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        return try await offThePool {
            try process.run()
            let data = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }
    }

    static func storeLine(_ stdout: String) -> String {
        stdout.split(separator: "\n").first { $0.contains(" store ") }.map(String.init) ?? "(no store line)\n\(stdout)"
    }

    @Test func aTeamsServerThatAnswersPassesAndOneThatDoesNotFails() async throws {
        let database = try await TestPostgres.database()
        defer { Task { await database.drop() } }
        var withPassword = try #require(URLComponents(string: database.url))
        withPassword.password = "s3cret-pw"
        let answered = try await Self.doctor(store: try #require(withPassword.url).absoluteString)
        #expect(Self.storeLine(answered.stdout).hasPrefix("PASS  store"), "\(answered.stdout)")
        #expect(Self.storeLine(answered.stdout).contains("the role may write"))
        #expect(!answered.stdout.contains("s3cret-pw"))

        withPassword.port = 1
        let refused = try await Self.doctor(store: try #require(withPassword.url).absoluteString)
        #expect(Self.storeLine(refused.stdout).hasPrefix("FAIL  store"), "\(refused.stdout)")
        #expect(refused.stdout.contains("cannot connect"))
        #expect(!refused.stdout.contains("s3cret-pw"))
    }

    @Test func aFileStoreNotMadeYetPassesAndAMistypedURLFails() async throws {
        let none = try await Self.doctor(store: nil)
        #expect(Self.storeLine(none.stdout).hasPrefix("PASS  store"), "\(none.stdout)")
        #expect(Self.storeLine(none.stdout).contains("none yet at"))
        let mistyped = try await Self.doctor(store: "postgres:/sam:pw@db.example.com/team")
        #expect(Self.storeLine(mistyped.stdout).hasPrefix("FAIL  store"), "\(mistyped.stdout)")
        #expect(!mistyped.stdout.contains(":pw@"))
    }
}
