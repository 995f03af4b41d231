import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// HTTP over AsyncHTTPClient (SwiftNIO): a request waits for its answer, or its deadline, in the
/// event loop's epoll/kqueue, so waiting costs no CPU. (URLSession on Linux busy-polls libcurl
/// while it waits: 10 requests to a silent server kept a core busy.)
///
/// Every request ends by `HTTPRequest.timeout`: the answer's head and its whole body. TLS verifies
/// the server's certificate against the system's roots. HTTPS_PROXY (https URLs), http_proxy (http
/// URLs) and NO_PROXY are honoured as curl reads them; loopback hosts are never proxied. Redirects
/// are not followed: a 3xx is an answer like any other (Apple's API and a notification endpoint
/// have none to give, and a redirect must not carry a request token to another host).
///
/// All transports of a process share their HTTP clients (one per proxy and connection limit, made
/// on first use and kept for the process's life), so connections are reused across clients.
public struct AsyncHTTPClientTransport: HTTPTransport {
    /// Bodies larger than this are refused: no App Store Server API answer comes close.
    public let maximumResponseBytes: Int
    /// HTTP/1.1 connections per host (HTTP/2, Apple's hosts, multiplexes on one). 16: a windowed
    /// history's requests go out two or three deep instead of six.
    public let connectionsPerHost: Int
    let proxies: ProxySettings

    public init(
        maximumResponseBytes: Int = 8 << 20, connectionsPerHost: Int = 16,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.maximumResponseBytes = maximumResponseBytes
        self.connectionsPerHost = max(1, connectionsPerHost)
        self.proxies = ProxySettings(environment: environment)
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try Task.checkCancellation()
        let deadline = NIODeadline.now() + Self.amount(request.timeout)
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for header in request.headers { outgoing.headers.add(name: header.name, value: header.value) }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        let client = SharedHTTPClients.client(proxy: proxies.proxy(for: request.url), connectionsPerHost: connectionsPerHost)
        let host = request.url.host ?? "server"
        do {
            let response = try await client.execute(outgoing, deadline: deadline)
            if let length = response.headers.first(name: "content-length").flatMap(Int.init), length > maximumResponseBytes {
                throw TransportFailure(kind: .responseTooLarge, detail: "\(length) bytes")
            }
            let body = try await Self.collect(response.body, upTo: maximumResponseBytes, by: deadline)
            var headers: [String: String] = [:]
            for (name, value) in response.headers {
                let key = name.lowercased()
                headers[key] = headers[key].map { "\($0), \(value)" } ?? value
            }
            return HTTPResponse(status: Int(response.status.code), headers: headers, body: Data(body.readableBytesView))
        } catch let failure as TransportFailure {
            throw failure
        } catch {
            if Task.isCancelled || error is CancellationError { throw CancellationError() }
            throw Self.failure(for: error, host: host)
        }
    }

    /// The body as it arrives, cut off at the deadline (AsyncHTTPClient's own covers the head only).
    static func collect(_ body: HTTPClientResponse.Body, upTo limit: Int, by deadline: NIODeadline) async throws -> ByteBuffer {
        try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
            group.addTask { try await body.collect(upTo: limit) }
            group.addTask {
                let left = deadline - .now()
                if left > .zero { try await Task.sleep(nanoseconds: UInt64(left.nanoseconds)) }
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let buffer = first else { throw HTTPClientError.deadlineExceeded }
            return buffer
        }
    }

    /// Seconds as NIO's time, within what it can hold (a year at most).
    static func amount(_ seconds: TimeInterval) -> TimeAmount {
        guard seconds.isFinite, seconds > 0 else { return .zero }
        return .nanoseconds(Int64(min(seconds, 365 * 86_400) * 1_000_000_000))
    }

    static func failure(for error: any Error, host: String) -> TransportFailure {
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .tlsHandshakeTimeout,
                 .getConnectionFromPoolTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
                return TransportFailure(kind: .timedOut, detail: "no answer from \(host) in time")
            case .remoteConnectionClosed:
                return TransportFailure(kind: .connectionLost, detail: "\(host) closed the connection")
            default:
                return TransportFailure(kind: .other, detail: "\(host): \(error)")
            }
        }
        if let error = error as? NIOConnectionError {
            if error.connectionErrors.isEmpty, error.dnsAError != nil || error.dnsAAAAError != nil {
                return TransportFailure(kind: .dns, detail: host)
            }
            if let first = error.connectionErrors.first?.error {
                let inner = failure(for: first, host: host)
                if inner.kind != .other { return inner }
            }
            return TransportFailure(kind: .cannotConnect, detail: "\(host) refused or is unreachable")
        }
        if let error = error as? IOError {
            switch error.errnoCode {
            case ECONNREFUSED, ENETUNREACH, EHOSTUNREACH:
                return TransportFailure(kind: .cannotConnect, detail: "\(host) refused or is unreachable")
            case ECONNRESET, EPIPE:
                return TransportFailure(kind: .connectionLost, detail: "\(host) closed the connection")
            case ETIMEDOUT:
                return TransportFailure(kind: .timedOut, detail: "no answer from \(host) in time")
            default:
                return TransportFailure(kind: .other, detail: "\(host): \(error)")
            }
        }
        if let error = error as? ChannelError {
            switch error {
            case .connectTimeout: return TransportFailure(kind: .timedOut, detail: "no answer from \(host) in time")
            case .eof, .ioOnClosedChannel, .alreadyClosed: return TransportFailure(kind: .connectionLost, detail: "\(host) closed the connection")
            default: return TransportFailure(kind: .other, detail: "\(host): \(error)")
            }
        }
        if error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError {
            return TransportFailure(kind: .tls, detail: host)
        }
        if error is SocketAddressError.UnknownHost { return TransportFailure(kind: .dns, detail: host) }
        if error is NIOTooManyBytesError { return TransportFailure(kind: .responseTooLarge, detail: host) }
        return TransportFailure(kind: .other, detail: "\(host): \(error)")
    }
}

/// The process's HTTP clients, one per proxy and connection limit, on NIO's shared event loops.
/// They are never shut down: they live as long as the process, as `HTTPClient.shared` does.
enum SharedHTTPClients {
    struct Key: Hashable {
        var proxy: HTTPClient.Configuration.Proxy?
        var connectionsPerHost: Int
    }

    private static let clients = Mutex<[Key: HTTPClient]>([:])

    static func client(proxy: HTTPClient.Configuration.Proxy?, connectionsPerHost: Int) -> HTTPClient {
        let key = Key(proxy: proxy, connectionsPerHost: connectionsPerHost)
        return clients.withLock { clients in
            if let client = clients[key] { return client }
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration(key))
            clients[key] = client
            return client
        }
    }

    static func configuration(_ key: Key) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(
            certificateVerification: .fullVerification,
            redirectConfiguration: .disallow,
            // Each request's deadline bounds it in all; connecting alone may take 10 s of it.
            timeout: HTTPClient.Configuration.Timeout(connect: .seconds(10), read: nil),
            proxy: key.proxy,
            ignoreUncleanSSLShutdown: false,
            decompression: .disabled)
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = key.connectionsPerHost
        // A refused connection fails its request at once, as the client's retry policy expects,
        // instead of being tried again and again inside one attempt until its deadline.
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }
}

/// The proxies of the environment, as curl reads them: https_proxy/HTTPS_PROXY for https URLs,
/// http_proxy for http URLs (not HTTP_PROXY, which a CGI request can set), no_proxy/NO_PROXY.
struct ProxySettings: Sendable, Equatable {
    var https: HTTPClient.Configuration.Proxy?
    var http: HTTPClient.Configuration.Proxy?
    /// Hosts and domains reached directly; "*" for every host.
    var direct: [String]

    init(environment: [String: String]) {
        func value(_ names: String...) -> String? {
            names.lazy.compactMap { environment[$0] }.first { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        }
        https = value("https_proxy", "HTTPS_PROXY").flatMap(Self.parse)
        http = value("http_proxy").flatMap(Self.parse)
        direct = (value("no_proxy", "NO_PROXY") ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .map { $0.hasPrefix(".") ? String($0.dropFirst()) : $0 }
            .filter { !$0.isEmpty }
    }

    func proxy(for url: URL) -> HTTPClient.Configuration.Proxy? {
        let proxy = url.scheme?.lowercased() == "https" ? https : http
        guard let proxy, let host = url.host?.lowercased() else { return nil }
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        if bare == "localhost" || bare.hasSuffix(".localhost") || bare.hasPrefix("127.") || bare == "::1" { return nil }
        if direct.contains(where: { $0 == "*" || bare == $0 || bare.hasSuffix("." + $0) }) { return nil }
        return proxy
    }

    /// `http://user:password@host:port`, `socks5://host:port` or `host:port` (port 1080 when absent, as curl has it).
    static func parse(_ text: String) -> HTTPClient.Configuration.Proxy? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let url = URL(string: trimmed.contains("://") ? trimmed : "http://" + trimmed), let host = url.host, !host.isEmpty else {
            return nil
        }
        let port = url.port ?? 1080
        switch url.scheme?.lowercased() {
        case "socks5", "socks5h", "socks":
            return .socksServer(host: host, port: port)
        case "http", "https":
            if let user = url.user?.removingPercentEncoding {
                let password = url.password?.removingPercentEncoding ?? ""
                return .server(host: host, port: port, authorization: .basic(username: user, password: password))
            }
            return .server(host: host, port: port)
        default:
            return nil
        }
    }
}
