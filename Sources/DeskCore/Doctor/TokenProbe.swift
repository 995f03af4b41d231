import AppStoreServerAPI
import Foundation

/// One authenticated request that tells whether Apple takes the profile's token in an environment.
///
/// It asks Get Transaction Info for a made-up transaction ID. That is the cheapest read that
/// tells 401 from "authenticated": one GET with no body, no paging, no date window and Apple's
/// generous read limit, and it answers nothing about real customers. An accepted token gets
/// 404 TransactionIdNotFoundError (4040010); a refused one 401; an unknown app 4040003/4040004.
/// (Get Notification History would need a POST with a date window, has a far lower rate limit in
/// Sandbox, and returns real notifications.)
struct TokenProbe: Sendable {
    /// Digits, as Apple's transaction IDs are, and far from any issued one.
    static let madeUpTransactionId = "1000000000000001"

    enum Outcome: Sendable, Equatable {
        /// Authenticated: Apple looked for the transaction (or found one).
        case accepted(status: Int, code: Int64?)
        case refused
        /// Authenticated, but Apple does not know the app (4040003, 4040004).
        case appNotFound(code: Int64)
        /// Another answer: rate limit, server error, an unexpected status.
        case other(status: Int, code: Int64?)
        /// No HTTP answer at all.
        case unreachable(String)
        /// No complete answer within the probe's time.
        case timedOut(seconds: TimeInterval)

        var isUnanswered: Bool {
            switch self {
            case .unreachable, .timedOut: return true
            default: return false
            }
        }
    }

    struct Result: Sendable, Equatable {
        let environment: ServerEnvironment
        let outcome: Outcome
        /// The server's `Date` header, and this machine's clock half-way through the request.
        let serverDate: Date?
        let localDate: Date
        /// How long the request took: the server's Date was set somewhere in it.
        var roundTrip: TimeInterval = 0
    }

    let transport: any HTTPTransport
    let timeout: TimeInterval

    func send(to environment: ServerEnvironment, credentials: Credentials, now: @Sendable () -> Date) async -> Result {
        let sentAt = now()
        let url = environment.baseURL.appendingPathComponent("inApps/v1/transactions/\(Self.madeUpTransactionId)")
        var outcome: Outcome
        var serverDate: Date?
        do {
            // Signed with the injected clock: a skewed clock gives Apple the token it would get.
            let signer = try RequestTokenSigner(credentials: credentials)
            let token = try await signer.sign(now: sentAt)
            let request = HTTPRequest(
                method: "GET", url: url, headers: [("Authorization", "Bearer \(token)"), ("Accept", "application/json")], timeout: timeout)
            let response = try await transport.send(request)
            serverDate = response.header("date").flatMap(Self.httpDate)
            outcome = Self.outcome(response)
        } catch let failure as TransportFailure where failure.kind == .timedOut {
            outcome = .timedOut(seconds: timeout)
        } catch let failure as TransportFailure {
            outcome = .unreachable(failure.summary)
        } catch {
            outcome = .unreachable(String(describing: error))
        }
        let receivedAt = now()
        return Result(
            environment: environment, outcome: outcome, serverDate: serverDate,
            localDate: sentAt.addingTimeInterval(receivedAt.timeIntervalSince(sentAt) / 2), roundTrip: receivedAt.timeIntervalSince(sentAt))
    }

    static func outcome(_ response: HTTPResponse) -> Outcome {
        let code = (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any])?["errorCode"].flatMap { ($0 as? NSNumber)?.int64Value }
        switch (response.status, code) {
        case (401, _): return .refused
        case (404, 4_040_003?), (404, 4_040_004?): return .appNotFound(code: code!)
        case (200, _), (404, 4_040_010?), (400, 4_000_006?): return .accepted(status: response.status, code: code)
        default: return .other(status: response.status, code: code)
        }
    }

    /// An HTTP date (RFC 9110 IMF-fixdate), such as `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text)
    }
}
