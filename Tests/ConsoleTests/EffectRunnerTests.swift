import AppStoreServerAPI
@testable import Console
import Crypto
@testable import DeskCore
import Foundation
import Synchronization
import Testing

/// The effect runner against a transport that answers from the test: what it asks Apple for and
/// what it posts back, with no network and no demo server.
@Suite struct EffectRunnerTests {
    /// Answers each request with `answer` and remembers what was asked.
    final class StubTransport: HTTPTransport {
        let answer: @Sendable (HTTPRequest) -> HTTPResponse
        let requests = Mutex<[HTTPRequest]>([])
        init(_ answer: @escaping @Sendable (HTTPRequest) -> HTTPResponse) { self.answer = answer }
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            requests.withLock { $0.append(request) }
            return answer(request)
        }
    }

    func runner(_ transport: StubTransport, posted: ActionBox) throws -> EffectRunner {
        try Self.runner(transport, post: posted.append)
    }

    static func runner(_ transport: StubTransport, post: @escaping @Sendable (ConsoleAction) -> Void) throws -> EffectRunner {
        let credentials = Credentials(
            issuerId: "57246542-96fe-1a63-e053-0824d011072a", keyId: "2X9R4HXF34", bundleId: "com.example",
            signingKey: SigningKey(P256.Signing.PrivateKey()))
        let client = try AppStoreServerClient(credentials: credentials, environment: .production, fallbackEnvironment: .sandbox, transport: transport)
        let services = DeskServices(client: client, verifier: nil, verifierProblem: "no root certificates in this test")
        return EffectRunner(services: services, makeServices: { _ in services }, makeIdentifier: { "fixed-identifier" }, post: post)
    }

    func wait(for box: ActionBox, request: Int) async throws -> [ConsoleAction] {
        var actions: [ConsoleAction] = []
        // A bound only a hang reaches; the pause paces the looking.
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            actions += box.drain()
            if actions.contains(where: { if case .finished(request) = $0 { return true } else { return false } }) { return actions }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        throw TestError("request \(request) did not finish")
    }

    @Test func anOrderLookupAsksApplesPathAndPostsItsAnswer() async throws {
        let transport = StubTransport { _ in HTTPResponse(status: 200, body: Data(#"{"status":1}"#.utf8)) }
        let box = ActionBox()
        var state = ConsoleState(profileName: "p", environment: .production, isDemo: false, bundleId: "com.example", readOnly: false, themeName: "default")
        let task = try #require(CustomerReducer.submit(&state, "MK5TTTVWJH").task(named: "look up order"))
        try runner(transport, posted: box).run(.task(task))
        let actions = try await wait(for: box, request: task.request)
        #expect(transport.requests.withLock { $0.map(\.url.path) } == ["/inApps/v1/lookup/MK5TTTVWJH"])
        guard case .order(.success(let order))? = actions.first?.customerPart?.part else { Issue.record("expected the order answer, got \(actions)"); return }
        #expect(order.orderId == "MK5TTTVWJH")
        #expect(order.status == .invalid)
        #expect(order.transactions.isEmpty)
    }

    @Test func anAppleErrorArrivesAsAValueWithItsCodeStatusAndEnvironment() async throws {
        let transport = StubTransport { _ in
            HTTPResponse(status: 404, body: Data(#"{"errorCode":4040010,"errorMessage":"Transaction id not found."}"#.utf8))
        }
        let box = ActionBox()
        var state = ConsoleState(profileName: "p", environment: .production, isDemo: false, bundleId: "com.example", readOnly: false, themeName: "default")
        state.customer = CustomerState(query: "2000000400000044", lookup: 1)
        state.customer?.environment = .sandbox
        let task = try #require(TransactionsPane.load(&state, anchor: "2000000400000044").task(named: "transaction history"))
        try runner(transport, posted: box).run(.task(task))
        let actions = try await wait(for: box, request: task.request)
        guard case .answer(_, let answer as TransactionsAnswer)? = actions.first, case .history(.failure(let error)) = answer else {
            Issue.record("expected a failed history, got \(actions)")
            return
        }
        #expect(error.code == .transactionIdNotFound)
        #expect(error.httpStatus == 404)
        #expect(error.environment == .sandbox, "the customer's environment, where the request went")
        #expect(error.facts == "Apple error 4040010 · HTTP 404 · Sandbox")
    }

    @Test func aReviewThatCannotReadTheSubscriptionSaysWhy() async throws {
        let box = ActionBox()
        // Apple answers 404 to the re-read: no confirmation, but the identifier was made by the generator.
        try runner(StubTransport { _ in HTTPResponse(status: 404, body: Data(#"{"errorCode":4040005,"errorMessage":"Original transaction id not found."}"#.utf8)) }, posted: box)
            .run(.reviewExtension(request: 4, originalTransactionId: "2000000400000044", environment: nil))
        let posted = try await wait(for: box, request: 4)
        guard case .extensionReviewed(4, .failure(let error))? = posted.first else { Issue.record("expected the failed review, got \(posted)"); return }
        #expect(error.code == .originalTransactionIdNotFound)
    }
}
