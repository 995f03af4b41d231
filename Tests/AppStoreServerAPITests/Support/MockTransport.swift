import AppStoreServerAPI
import Foundation
import Synchronization

/// Answers requests from a script and records what was sent.
final class MockTransport: HTTPTransport {
    enum Reply: Sendable {
        case response(HTTPResponse)
        case failure(TransportFailure)
        /// No answer: waits until cancelled, like a server that never replies.
        case hang
        /// An answer that takes this long, whatever happens (a slow trickle the caller cannot hurry).
        case slow(HTTPResponse, seconds: TimeInterval)
    }

    private let state = Mutex<(replies: [Reply], requests: [HTTPRequest])>(([], []))

    init(_ replies: [Reply] = []) {
        state.withLock { $0.replies = replies }
    }

    static func json(_ status: Int, _ body: String, headers: [String: String] = [:]) -> Reply {
        .response(HTTPResponse(status: status, headers: ["Content-Type": "application/json"].merging(headers) { $1 }, body: Data(body.utf8)))
    }

    static func fixture(_ name: String, status: Int = 200) -> Reply {
        .response(HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: Fixture.model(name)))
    }

    func enqueue(_ reply: Reply) { state.withLock { $0.replies.append(reply) } }

    var requests: [HTTPRequest] { state.withLock { $0.requests } }
    var lastRequest: HTTPRequest? { requests.last }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let reply: Reply? = state.withLock { state in
            state.requests.append(request)
            return state.replies.isEmpty ? nil : state.replies.removeFirst()
        }
        switch reply {
        case .response(let response): return response
        case .failure(let failure): throw failure
        case .hang:
            try await Task.sleep(nanoseconds: 3_600_000_000_000)
            throw CancellationError()
        case .slow(let response, let seconds):
            // Deliberately deaf to cancellation, as a blocked read would be.
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { continuation.resume() }
            }
            return response
        case nil: return HTTPResponse(status: 500, body: Data("no scripted reply".utf8))
        }
    }
}

/// A clock that never sleeps: it records each wait and moves its own time forward.
final class TestClock: RetryClock {
    private let state: Mutex<(now: Date, sleeps: [TimeInterval])>

    init(now: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        state = Mutex((now, []))
    }

    func now() -> Date { state.withLock { $0.now } }
    var sleeps: [TimeInterval] { state.withLock { $0.sleeps } }

    func sleep(seconds: TimeInterval) async throws {
        try Task.checkCancellation()
        state.withLock {
            $0.sleeps.append(seconds)
            $0.now = $0.now.addingTimeInterval(seconds)
        }
    }
}
