import DeskStore
import Foundation
import Logging
import PostgresNIO
@testable import PostgresStore
import Synchronization

/// The PostgreSQL server the team store's tests run on: IAPDESK_TEST_POSTGRES_URL when set (CI sets
/// it), else one that scripts/test-postgres.sh starts on loopback. No test is skipped without one:
/// they fail, saying how to get one.
enum TestPostgres {
    struct Unavailable: Error, CustomStringConvertible {
        let description: String
    }

    private static let server = Mutex<Task<PostgresAddress, any Error>?>(nil)

    /// The server, started once for the whole run.
    static func address() async throws -> PostgresAddress {
        let task = server.withLock { task in
            if let task { return task }
            let made = Task { try await findOrStart() }
            task = made
            return made
        }
        return try await task.value
    }

    private static func findOrStart() async throws -> PostgresAddress {
        let environment = ProcessInfo.processInfo.environment
        let url: String
        if let given = environment["IAPDESK_TEST_POSTGRES_URL"], !given.isEmpty {
            url = given
        } else {
            url = try await script(["start"])
        }
        do {
            return try PostgresAddress(parsing: url)
        } catch {
            throw Unavailable(description: "IAPDESK_TEST_POSTGRES_URL cannot be used: \(error)")
        }
    }

    /// Runs scripts/test-postgres.sh with `arguments` without holding a thread of the test pool; what it printed.
    static func script(_ arguments: [String]) async throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [root.appendingPathComponent("scripts/test-postgres.sh").path] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard status == 0 else {
            throw Unavailable(description: "The PostgreSQL tests need a server. " + said.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return printed.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A new, empty database on the server, dropped by `drop()`.
    static func database() async throws -> TestDatabase {
        let server = try await address()
        let name = "iapdesk_test_" + UUID().uuidString.prefix(8).lowercased()
        try await admin(server) { connection in
            try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: PostgresNotificationStore.logger)
        }
        var address = server
        address.database = name
        return TestDatabase(server: server, address: address)
    }

    static func admin(_ server: PostgresAddress, _ body: (PostgresConnection) async throws -> Void) async throws {
        let connection = try await PostgresConnection.connect(
            configuration: try PostgresConnectionSettings.connection(server), id: 0, logger: PostgresNotificationStore.logger)
        do {
            try await body(connection)
            try await connection.close()
        } catch {
            try? await connection.close()
            throw Unavailable(description: "The PostgreSQL server at \(server.redacted): \(PostgresConnectionSettings.describe(error))")
        }
    }
}

struct TestDatabase {
    let server: PostgresAddress
    let address: PostgresAddress

    var url: String {
        var text = "postgres://\(address.username)@\(address.host ?? "127.0.0.1"):\(address.port)/\(address.database)"
        if let folder = address.socketFolder { text += "?host=\(folder)" }
        return text
    }

    func drop() async {
        try? await TestPostgres.admin(server) { connection in
            try await connection.query(
                PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(address.database) WITH (FORCE)"), logger: PostgresNotificationStore.logger)
        }
    }
}
