import DeskStore
import Foundation
import NIOSSL
import PostgresNIO

/// postgres-nio's two configurations (one connection, the pool) made from one address.
enum PostgresConnectionSettings {
    static let connectTimeout: Int64 = 10

    static func connection(_ address: PostgresAddress, applicationName: String = "iapdesk") throws -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        if let folder = address.socketFolder {
            configuration = .init(
                unixSocketPath: socketPath(folder, port: address.port), username: address.username, password: address.password,
                database: address.database)
        } else {
            let tls: PostgresConnection.Configuration.TLS
            switch address.tls {
            case .disable: tls = .disable
            case .prefer: tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .require, .verifyFull: tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
            configuration = .init(
                host: address.host ?? "localhost", port: address.port, username: address.username, password: address.password,
                database: address.database, tls: tls)
        }
        configuration.options.connectTimeout = .seconds(connectTimeout)
        configuration.options.additionalStartupParameters = [("application_name", address.applicationName ?? applicationName)]
        return configuration
    }

    static func pool(_ address: PostgresAddress, connections: Int, applicationName: String) -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let folder = address.socketFolder {
            configuration = .init(
                unixSocketPath: socketPath(folder, port: address.port), username: address.username, password: address.password,
                database: address.database)
        } else {
            let tls: PostgresClient.Configuration.TLS
            switch address.tls {
            case .disable: tls = .disable
            case .prefer: tls = .prefer(.makeClientConfiguration())
            case .require, .verifyFull: tls = .require(.makeClientConfiguration())
            }
            configuration = .init(
                host: address.host ?? "localhost", port: address.port, username: address.username, password: address.password,
                database: address.database, tls: tls)
        }
        configuration.options.connectTimeout = .seconds(connectTimeout)
        configuration.options.additionalStartupParameters = [("application_name", address.applicationName ?? applicationName)]
        configuration.options.maximumConnections = connections
        // An idle receiver keeps one connection open, so the first notification after a quiet hour
        // does not wait for a new one.
        configuration.options.minimumConnections = 1
        return configuration
    }

    /// libpq's name for a server's socket in its folder.
    static func socketPath(_ folder: String, port: Int) -> String {
        (folder.hasSuffix("/") ? String(folder.dropLast()) : folder) + "/.s.PGSQL.\(port)"
    }

    /// What went wrong, in words that never carry the password (postgres-nio's own descriptions hide
    /// everything, so the server's message or the connection's cause is read out here).
    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] {
                let state = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
                let hint = error.serverInfo?[.hint].map { "; \($0)" } ?? ""
                return message + state + hint
            }
            switch error.code {
            case .connectionError:
                return "cannot connect: " + (error.underlying.map(describeUnderlying) ?? "no reason given")
            case .authMechanismRequiresPassword:
                return "the server asks for a password and none was given (put it in the URL or in PGPASSWORD)"
            case .sslUnsupported:
                return "the server does not offer TLS, which sslmode=require asks for"
            case .unsupportedAuthMechanism:
                return "the server asks for a way of signing in that is not supported (use scram-sha-256, md5 or trust)"
            case .serverClosedConnection, .clientClosedConnection:
                return "the connection was closed" + (error.underlying.map { ": " + describeUnderlying($0) } ?? "")
            case .poolClosed:
                return "the store is closed"
            case .queryCancelled:
                return "the query was cancelled"
            case .failedToAddSSLHandler:
                return "TLS could not be set up" + (error.underlying.map { ": " + describeUnderlying($0) } ?? "")
            default:
                return "the server's answer could not be used (\(error.code))"
            }
        }
        if let error = error as? PostgresTransactionError {
            // The error that mattered: the closure's, else the BEGIN's, the COMMIT's or the ROLLBACK's.
            if let inner = error.closureError ?? error.beginError ?? error.commitError ?? error.rollbackError { return describe(inner) }
        }
        if String(describing: type(of: error)) == "ConnectionPoolError" {
            return "cannot connect to the server (new connections keep failing; retrying)"
        }
        if let error = error as? PostgresDecodingError {
            return "a column could not be read (\(error.columnName): \(error.code))"
        }
        return describeUnderlying(error)
    }

    private static func describeUnderlying(_ error: any Error) -> String {
        if let error = error as? IOError { return String(cString: strerror(error.errnoCode)).lowercased() }
        if let error = error as? NIOConnectionError {
            return error.connectionErrors.first.map { describeUnderlying($0.error) } ?? "\(error)"
        }
        if error is ChannelError { return "\(error)" }
        if let error = error as? NIOSSLError { return "TLS: \(error)" }
        return "\(error)"
    }
}
