import Foundation

/// Where the store is: the embedded SQLite file of one agent, or a team's PostgreSQL server.
/// Parsed from `--store`, `IAPDESK_STORE` or the profile's `store`; a value that starts with
/// `postgres://` or `postgresql://` names a server, anything else a file.
public enum StoreLocation: Sendable, Equatable, CustomStringConvertible {
    case file(path: String)
    case postgres(PostgresAddress)

    public init(parsing text: String) throws(StoreLocationError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw StoreLocationError("the store is empty: give a file path or a postgres:// URL") }
        let lowered = trimmed.lowercased()
        if lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") {
            self = .postgres(try PostgresAddress(parsing: trimmed))
        } else if lowered.contains("://") {
            let scheme = trimmed.prefix { $0 != ":" }
            throw StoreLocationError("a store URL must start with postgres:// (not \(scheme)://); a file store is a path")
        } else if trimmed.range(of: "^[A-Za-z][A-Za-z0-9+.-]*:/", options: .regularExpression) != nil || lowered.hasPrefix("postgres") && lowered.contains("@") {
            // "postgres:/user:secret@host/db": a URL mistyped, never a file to make (nor to print).
            throw StoreLocationError("the store looks like a URL but is not one: write it as postgres://user@host:5432/database; a file store is a path")
        } else {
            self = .file(path: trimmed)
        }
    }

    /// What to show: a file's path, a server's URL without its password.
    public var description: String {
        switch self {
        case .file(let path): return path
        case .postgres(let address): return address.redacted
        }
    }

    public var isShared: Bool {
        if case .postgres = self { return true }
        return false
    }
}

public struct StoreLocationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A PostgreSQL server and database, from a URL such as
/// `postgres://agent:secret@db.example.com:5432/iapdesk?sslmode=require`. The password comes from
/// the URL or else from `PGPASSWORD`; it is never part of `redacted` or of any error.
public struct PostgresAddress: Sendable, Equatable {
    public enum TLSMode: String, Sendable, Equatable, CaseIterable {
        /// Plain TCP (loopback, a private network, a Unix socket).
        case disable
        /// TLS when the server offers it.
        case prefer
        /// TLS or no connection; the server's certificate is checked against the system's roots.
        case require
        /// As `require`; named as libpq names it.
        case verifyFull = "verify-full"
    }

    public var host: String?
    public var port: Int
    /// A folder holding the server's Unix socket (`?host=/var/run/postgresql`), used instead of TCP.
    public var socketFolder: String?
    public var username: String
    public var password: String?
    public var database: String
    public var tls: TLSMode
    /// What the server shows for this process's connections (`pg_stat_activity`, its logs): the
    /// URL's `application_name`, else the name the opening process gives (`iapdesk listen`).
    public var applicationName: String?

    public init(
        host: String?, port: Int = 5432, socketFolder: String? = nil, username: String, password: String?, database: String,
        tls: TLSMode = .prefer
    ) {
        self.host = host
        self.port = port
        self.socketFolder = socketFolder
        self.username = username
        self.password = password
        self.database = database
        self.tls = tls
    }

    public init(parsing text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(StoreLocationError) {
        // URLComponents drops a URL it cannot parse whole; say which part is wrong without echoing
        // the text, which may hold the password.
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "postgres" || scheme == "postgresql"
        else {
            throw StoreLocationError("the store URL cannot be read: write it as postgres://user:password@host:5432/database (characters such as @ : / in the password must be %-encoded)")
        }
        let query = components.queryItems ?? []
        func parameter(_ name: String) -> String? { query.last { $0.name == name }?.value.flatMap { $0.isEmpty ? nil : $0 } }
        for item in query where !["sslmode", "host", "port", "user", "password", "dbname", "application_name"].contains(item.name) {
            throw StoreLocationError(
                "the store URL has an unknown parameter \(item.name): sslmode, host, port, user, password, dbname and application_name are understood")
        }
        applicationName = parameter("application_name")
        socketFolder = parameter("host").flatMap { $0.hasPrefix("/") ? $0 : nil }
        // An IPv6 address comes bracketed (postgres://sam@[::1]:5432/db); connecting takes it bare.
        let urlHost = components.host.map { $0.hasPrefix("[") && $0.hasSuffix("]") ? String($0.dropFirst().dropLast()) : $0 }
        host = urlHost.flatMap { $0.isEmpty ? nil : $0 } ?? parameter("host").flatMap { $0.hasPrefix("/") ? nil : $0 }
        guard host != nil || socketFolder != nil else {
            throw StoreLocationError("the store URL names no server: postgres://user@HOST:5432/database, or ?host=/socket/folder")
        }
        if let portText = parameter("port") {
            guard let value = Int(portText), (1...65535).contains(value) else { throw StoreLocationError("the store URL's port must be 1 to 65535") }
            port = value
        } else {
            port = components.port ?? 5432
            guard (1...65535).contains(port) else { throw StoreLocationError("the store URL's port must be 1 to 65535") }
        }
        let user = parameter("user") ?? components.user.flatMap { $0.isEmpty ? nil : $0 }
        guard let user else { throw StoreLocationError("the store URL names no user: postgres://USER@host/database") }
        username = user
        password = parameter("password") ?? components.password ?? environment["PGPASSWORD"].flatMap { $0.isEmpty ? nil : $0 }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard let name = parameter("dbname") ?? (path.isEmpty ? nil : path), !name.contains("/") else {
            throw StoreLocationError("the store URL names no database: postgres://user@host:5432/DATABASE")
        }
        database = name
        if let mode = parameter("sslmode") {
            guard let value = TLSMode(rawValue: mode) else {
                throw StoreLocationError("the store URL's sslmode must be one of \(TLSMode.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            tls = value
        } else {
            // Loopback and sockets need no TLS; anything else gets it when the server offers it.
            tls = socketFolder != nil || host == "localhost" || host == "127.0.0.1" || host == "::1" ? .disable : .prefer
        }
    }

    /// The URL as shown in output, logs and errors: everything but the password.
    public var redacted: String {
        var text = "postgres://\(username)@"
        if let host { text += host.contains(":") ? "[\(host)]" : host }
        text += ":\(port)/\(database)"
        var parameters: [String] = []
        if let socketFolder { parameters.append("host=\(socketFolder)") }
        if tls != .prefer { parameters.append("sslmode=\(tls.rawValue)") }
        // Named in the URL: shown, so two receivers on one database can be told apart by it.
        if let applicationName { parameters.append("application_name=\(applicationName)") }
        return parameters.isEmpty ? text : text + "?" + parameters.joined(separator: "&")
    }
}
