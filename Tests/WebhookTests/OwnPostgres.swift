import DeskStore
import Foundation
import PostgresNIO
@testable import PostgresStore

/// A PostgreSQL server of one test's own, in a temporary folder on a free loopback port, which the
/// test stops, starts, freezes and thaws (scripts/test-postgres.sh with that folder and port). The
/// shared test server is never touched.
struct OwnPostgres {
    let folder: TemporaryFolder
    let port: Int

    var dataFolder: String { folder.url.appendingPathComponent("postgres").path }
    var address: PostgresAddress { try! PostgresAddress(parsing: "postgres://iapdesk@127.0.0.1:\(port)/postgres") }
    var url: String { "postgres://iapdesk@127.0.0.1:\(port)/postgres" }

    static func start() async throws -> OwnPostgres {
        let folder = try TemporaryFolder()
        let server = OwnPostgres(folder: folder, port: try freePort())
        do {
            _ = try await server.run("start")
        } catch {
            folder.remove()
            throw error
        }
        return server
    }

    /// Stops the server: its connections are cut and new ones refused.
    func stop() async throws { _ = try await run("stop") }
    func restart() async throws { _ = try await run("start") }
    /// The server and every connection to it stop answering, as a hung host does; nothing is refused.
    func freeze() async throws { _ = try await run("freeze") }
    func thaw() async throws { _ = try await run("thaw") }

    func remove() async {
        _ = try? await run("remove")
        folder.remove()
    }

    private func run(_ command: String) async throws -> String {
        try await TestPostgres.script([command, dataFolder, String(port)])
    }

    /// Bytes a client sent to the server that it has not read: a frozen server's sign that a query reached it.
    func unreadBytes() -> Int {
        let hexPort = String(format: "%04X", port)
        var total = 0
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            // Read to the end: procfs files say they are empty.
            guard let handle = FileHandle(forReadingAtPath: table) else { continue }
            let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
            try? handle.close()
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count > 4, fields[1].hasSuffix(":\(hexPort)") else { continue }
                let queues = fields[4].split(separator: ":")
                if queues.count == 2, let unread = Int(queues[1], radix: 16) { total += unread }
            }
        }
        return total
    }

    /// A port nothing listens on now (the kernel's pick for a socket bound to port 0).
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound else { throw TestPostgres.Unavailable(description: "no free loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
