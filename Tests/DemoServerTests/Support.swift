import AppStoreServerAPI
@testable import DemoServer
import Foundation
import Hummingbird
import NIOCore
import ServiceLifecycle
import Synchronization

/// One demo server shared by read-only tests; tests that write start their own.
enum SharedDemo {
    static let server = Task { try await DemoServer.start() }

    static func get() async throws -> DemoServer { try await server.value }
}

extension DemoServer {
    /// A client that does not retry, so each error reaches the test as Apple sent it.
    func plainClient(_ environment: AppStoreEnvironment = .production) throws -> AppStoreServerClient {
        try makeClient(environment: environment, retryPolicy: .none)
    }

    func verified(_ jws: String?, environment: AppStoreEnvironment = .production) async throws -> TransactionPayload {
        let result = try await makeVerifier(environment: environment).verifyTransaction(jws ?? "")
        guard result.status == .verified, let payload = result.payload else {
            throw TestFailure("transaction did not verify: \(result.status.summary)")
        }
        return payload
    }

    func customer(_ scenario: String, _ environment: AppStoreEnvironment = .production) throws -> DemoSeedCustomer {
        guard let customer = seedIDs(environment).customers.first(where: { $0.scenario == scenario }) else {
            throw TestFailure("no demo customer \(scenario)")
        }
        return customer
    }
}

extension DemoServer {
    /// Sends a request exactly as written, for inputs the typed client cannot make (wrong JSON
    /// types, repeated parameters); returns the status and Apple's error code, if any.
    func raw(
        _ method: String, _ path: String, query: String? = nil, body: String? = nil, environment: AppStoreEnvironment = .production
    ) async throws -> (status: Int, code: Int64?) {
        let base = environment == .sandbox ? sandboxURL : productionURL
        var text = base.absoluteString + path
        if let query { text += "?" + query }
        var headers = [(name: "Authorization", value: "Bearer \(try await RequestTokenSigner(credentials: credentials).token())")]
        if body != nil { headers.append(("Content-Type", "application/json")) }
        let request = AppStoreServerAPI.HTTPRequest(method: method, url: URL(string: text)!, headers: headers, body: body.map { Data($0.utf8) }, timeout: 30)
        let response = try await AsyncHTTPClientTransport().send(request)
        return (response.status, (try? AppStoreJSON.decode(ErrorPayload.self, from: response.body))?.errorCode)
    }

    /// The error code `raw` got, checking the status is its first three digits as Apple's is.
    func rawCode(
        _ method: String, _ path: String, query: String? = nil, body: String? = nil, environment: AppStoreEnvironment = .production
    ) async throws -> Int64? {
        let (status, code) = try await raw(method, path, query: query, body: body, environment: environment)
        if let code, Int64(status) != code / 10_000 { throw TestFailure("status \(status) does not match error code \(code)") }
        return code ?? (status < 300 ? 0 : -Int64(status))
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Calls `body` and returns the APIError it throws (or records that none was thrown).
func apiError<T>(_ body: () async throws -> T) async -> APIError? {
    do {
        _ = try await body()
        return nil
    } catch let error as APIError {
        return error
    } catch {
        return .invalidRequest("not an APIError: \(error)")
    }
}

extension APIError {
    var code: Int64? {
        if case .server(let failure) = self { return failure.code?.rawValue }
        return nil
    }
}

/// A notification receiver started by a test: records each body and answers with `status` after `delay`.
final class WebhookReceiver: Sendable {
    let url: URL
    private let box: ReceivedBox
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    var bodies: [String] { box.storage.withLock { $0 } }

    private init(url: URL, box: ReceivedBox, group: ServiceGroup, task: Task<Void, any Error>) {
        self.url = url
        self.box = box
        self.group = group
        self.task = task
    }

    static func start(status: Int = 200, delay: TimeInterval = 0) async throws -> WebhookReceiver {
        let box = ReceivedBox()
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        let app = Application(
            responder: CallbackResponder<BasicRequestContext> { request, _ in
                let buffer = try await request.body.collect(upTo: 1 << 20)
                box.append(String(buffer: buffer))
                if delay > 0 { try? await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000)) }
                return Response(status: .init(code: status))
            },
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            })
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: app.logger))
        let task = Task { try await group.run() }
        var port = 0
        for await value in stream { port = value }
        let receiver = WebhookReceiver(url: URL(string: "http://127.0.0.1:\(port)/notifications")!, box: box, group: group, task: task)
        return receiver
    }

    func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }
}

final class ReceivedBox: Sendable {
    let storage = Mutex<[String]>([])
    func append(_ text: String) { storage.withLock { $0.append(text) } }
}
