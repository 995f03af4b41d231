@testable import AppStoreServerAPI
import Foundation
import Testing

/// The network's transport against loopback servers that hang, trickle, refuse or answer. Each test
/// waits for what happens (an error, a connection reaching the server), never for a fixed time; a
/// lower bound checks a deadline was kept, and the upper bounds are far above any timeout used but
/// far below what a deadline left unkept would take (120 s requests, the 60 s default).
@Suite struct AsyncHTTPClientTransportTests {
    let transport = AsyncHTTPClientTransport()

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    func client(_ server: SilentServer, retry: RetryPolicy = RetryPolicy(), callTimeout: TimeInterval? = nil) throws -> AppStoreServerClient {
        try AppStoreServerClient(
            credentials: TestCredentials.credentials, environment: ServerEnvironment(environment: .production, baseURL: server.url),
            transport: transport, retryPolicy: retry, timeout: 120, callTimeout: callTimeout)
    }

    @Test func aSilentServerEndsTheRequestAtItsTimeout() async throws {
        let server = try await SilentServer.start()
        let started = ContinuousClock.now
        let error = await #expect(throws: TransportFailure.self) {
            _ = try await transport.send(HTTPRequest(method: "GET", url: server.url.appendingPathComponent("inApps/v1/transactions/1"), timeout: 1))
        }
        let elapsed = Self.seconds(since: started)
        #expect(error?.kind == .timedOut)
        #expect(elapsed >= 0.95 && elapsed < 60, "took \(elapsed) s")
        await server.stop()
    }

    @Test func aClientCallToASilentServerEndsAtItsDeadline() async throws {
        let server = try await SilentServer.start()
        let client = try client(server, callTimeout: 1.5)
        let started = ContinuousClock.now
        let error = await #expect(throws: APIError.self) { _ = try await client.getTransactionInfo(transactionId: "1") }
        let elapsed = Self.seconds(since: started)
        guard case .deadlineExceeded(let failure)? = error else { Issue.record("expected the deadline, got \(String(describing: error))"); return }
        #expect(failure.seconds == 1.5)
        #expect(elapsed >= 1.45 && elapsed < 60, "took \(elapsed) s")
        await server.stop()
    }

    @Test func aHeadWithoutItsWholeBodyEndsAtTheTimeout() async throws {
        let server = try await SilentServer.start(answer: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"a\":")
        let started = ContinuousClock.now
        let error = await #expect(throws: TransportFailure.self) {
            _ = try await transport.send(HTTPRequest(method: "GET", url: server.url, timeout: 1))
        }
        let elapsed = Self.seconds(since: started)
        #expect(error?.kind == .timedOut)
        #expect(elapsed >= 0.95 && elapsed < 60, "took \(elapsed) s")
        await server.stop()
    }

    @Test func cancellingTheTaskEndsTheRequest() async throws {
        let server = try await SilentServer.start()
        var connections = server.connections.makeAsyncIterator()
        let transport = self.transport
        let started = ContinuousClock.now
        let request = Task { try await transport.send(HTTPRequest(method: "GET", url: server.url, timeout: 120)) }
        _ = await connections.next()
        request.cancel()
        await #expect(throws: CancellationError.self) { _ = try await request.value }
        #expect(Self.seconds(since: started) < 60)
        await server.stop()
    }

    @Test func cancellingAClientCallEndsIt() async throws {
        let server = try await SilentServer.start()
        var connections = server.connections.makeAsyncIterator()
        let client = try client(server)
        let started = ContinuousClock.now
        let call = Task { () async throws(APIError) -> TransactionInfoResponse in try await client.getTransactionInfo(transactionId: "1") }
        _ = await connections.next()
        call.cancel()
        let error = await #expect(throws: APIError.self) { _ = try await call.value }
        #expect(error == .cancelled)
        #expect(Self.seconds(since: started) < 60)
        await server.stop()
    }

    @Test(arguments: [503, 429])
    func anAnswerWorthRetryingIsRetried(status: Int) async throws {
        let server = try await SilentServer.start(
            answer: "HTTP/1.1 \(status) Busy\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
        var connections = server.connections.makeAsyncIterator()
        let client = try client(server, retry: RetryPolicy(maxAttempts: 3, baseDelay: 0.05, maxDelay: 0.05))
        let error = await #expect(throws: APIError.self) { _ = try await client.getTransactionInfo(transactionId: "1") }
        guard case .server(let failure)? = error else { Issue.record("expected the server's answer, got \(String(describing: error))"); return }
        #expect(failure.status == status)
        // Every attempt came on a connection of its own (each answer closed its own).
        for _ in 0..<3 { _ = await connections.next() }
        await server.stop()
    }

    @Test func anAnswerArrivesWithItsStatusHeadersAndBody() async throws {
        let server = try await SilentServer.start(
            answer: "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nX-Twice: a\r\nX-Twice: b\r\nContent-Length: 2\r\n\r\n{}")
        let response = try await transport.send(HTTPRequest(method: "POST", url: server.url, body: Data("{}".utf8), timeout: 30))
        #expect(response.status == 404)
        #expect(response.header("content-type") == "application/json")
        #expect(response.header("x-twice") == "a, b")
        #expect(response.body == Data("{}".utf8))
        await server.stop()
    }

    @Test func anAnswerLargerThanAllowedIsRefused() async throws {
        let server = try await SilentServer.start(answer: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + String(repeating: "x", count: 100))
        let small = AsyncHTTPClientTransport(maximumResponseBytes: 10)
        let error = await #expect(throws: TransportFailure.self) { _ = try await small.send(HTTPRequest(method: "GET", url: server.url, timeout: 30)) }
        #expect(error?.kind == .responseTooLarge)
        await server.stop()
    }

    @Test func aRefusedConnectionFailsAtOnceAsCannotConnect() async throws {
        let server = try await SilentServer.start()
        let url = server.url
        await server.stop()
        let started = ContinuousClock.now
        let error = await #expect(throws: TransportFailure.self) { _ = try await transport.send(HTTPRequest(method: "GET", url: url, timeout: 120)) }
        #expect(error?.kind == .cannotConnect)
        #expect(Self.seconds(since: started) < 60)
    }

    @Test func proxiesComeFromTheEnvironmentAsCurlReadsThem() {
        let settings = ProxySettings(environment: [
            "HTTPS_PROXY": "http://user:p%40ss@proxy.example:3128", "http_proxy": "plain.example", "NO_PROXY": "internal.example, .corp.example",
        ])
        #expect(settings.proxy(for: URL(string: "https://api.storekit.itunes.apple.com/inApps")!)
            == .server(host: "proxy.example", port: 3128, authorization: .basic(username: "user", password: "p@ss")))
        #expect(settings.proxy(for: URL(string: "http://hooks.example/x")!) == .server(host: "plain.example", port: 1080))
        #expect(settings.proxy(for: URL(string: "https://internal.example/x")!) == nil)
        #expect(settings.proxy(for: URL(string: "https://a.corp.example/x")!) == nil)
        #expect(settings.proxy(for: URL(string: "https://127.0.0.1:8443/x")!) == nil)
        #expect(settings.proxy(for: URL(string: "https://localhost/x")!) == nil)
        #expect(settings.proxy(for: URL(string: "https://[::1]:8443/x")!) == nil)
        // HTTP_PROXY in capitals is not read (a CGI request can set it), as curl does not.
        #expect(ProxySettings(environment: ["HTTP_PROXY": "proxy.example:3128"]).proxy(for: URL(string: "http://hooks.example/x")!) == nil)
        #expect(ProxySettings(environment: ["https_proxy": "proxy.example:3128", "no_proxy": "*"]).proxy(for: URL(string: "https://a.example")!) == nil)
    }
}
