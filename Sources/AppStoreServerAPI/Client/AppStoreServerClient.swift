import Foundation

/// The one client every pane, command and test uses to reach the App Store Server API.
public struct AppStoreServerClient: Sendable {
    public let environment: ServerEnvironment
    /// Where a lookup goes when `environment` answers "not found" (Production's Sandbox).
    public let fallbackEnvironment: ServerEnvironment?
    public let retryPolicy: RetryPolicy
    /// Longest wait for one attempt's complete answer (never more than what is left of the deadline).
    public let timeout: TimeInterval
    /// Longest time one call may take in all, retries and waits included; nil: only `Deadline.current` bounds it.
    public let callTimeout: TimeInterval?
    /// Keeps requests within Apple's per-endpoint rates; nil: requests go out as they are made.
    /// Copies of the client (`switching(to:)`) share it.
    public let rateLimiter: RequestRateLimiter?
    private let signer: RequestTokenSigner
    private let transport: any HTTPTransport
    private let clock: any RetryClock
    private let random: @Sendable () -> Double

    public static let userAgent = "iapdesk/0.1"

    public init(
        credentials: Credentials,
        environment: ServerEnvironment,
        fallbackEnvironment: ServerEnvironment? = nil,
        transport: any HTTPTransport = AsyncHTTPClientTransport(),
        retryPolicy: RetryPolicy = RetryPolicy(),
        timeout: TimeInterval = 30,
        callTimeout: TimeInterval? = nil,
        clock: any RetryClock = SystemRetryClock(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        rateLimiter: RequestRateLimiter? = nil
    ) throws {
        self.init(
            signer: try RequestTokenSigner(credentials: credentials), environment: environment,
            fallbackEnvironment: fallbackEnvironment, transport: transport, retryPolicy: retryPolicy,
            timeout: timeout, callTimeout: callTimeout, clock: clock, random: random, rateLimiter: rateLimiter)
    }

    init(
        signer: RequestTokenSigner, environment: ServerEnvironment, fallbackEnvironment: ServerEnvironment?,
        transport: any HTTPTransport, retryPolicy: RetryPolicy, timeout: TimeInterval, callTimeout: TimeInterval?,
        clock: any RetryClock, random: @escaping @Sendable () -> Double, rateLimiter: RequestRateLimiter?
    ) {
        self.rateLimiter = rateLimiter
        self.signer = signer
        self.environment = environment
        self.fallbackEnvironment = fallbackEnvironment
        self.transport = transport
        self.retryPolicy = retryPolicy
        self.timeout = timeout
        self.callTimeout = callTimeout
        self.clock = clock
        self.random = random
    }

    /// Apple's Production with the documented Sandbox fallback, or Apple's Sandbox.
    public static func apple(
        credentials: Credentials, environment: AppStoreEnvironment, transport: any HTTPTransport = AsyncHTTPClientTransport(),
        callTimeout: TimeInterval? = nil
    ) throws -> AppStoreServerClient {
        let primary: ServerEnvironment = environment == .sandbox ? .sandbox : .production
        return try AppStoreServerClient(
            credentials: credentials, environment: primary,
            fallbackEnvironment: environment == .sandbox ? nil : .sandbox, transport: transport, callTimeout: callTimeout)
    }

    /// The same client pointed at another environment (sharing key, transport and settings).
    public func switching(to environment: ServerEnvironment, fallback: ServerEnvironment? = nil) -> AppStoreServerClient {
        AppStoreServerClient(
            signer: signer, environment: environment, fallbackEnvironment: fallback, transport: transport,
            retryPolicy: retryPolicy, timeout: timeout, callTimeout: callTimeout, clock: clock, random: random,
            rateLimiter: rateLimiter)
    }

    /// The same client keeping its requests within `limiter`'s rates (nil: no client-side limit).
    /// Give every client of one app the same limiter: Apple's limits are per app.
    public func limited(by limiter: RequestRateLimiter?) -> AppStoreServerClient {
        AppStoreServerClient(
            signer: signer, environment: environment, fallbackEnvironment: fallbackEnvironment, transport: transport,
            retryPolicy: retryPolicy, timeout: timeout, callTimeout: callTimeout, clock: clock, random: random,
            rateLimiter: limiter)
    }

    // MARK: Sending

    /// A retry is worth sending only if at least this much time is left for it after the wait.
    static let shortestUsefulAttempt: TimeInterval = 0.25

    /// Sends one endpoint call: signs, retries what may be retried, maps every failure to `APIError`.
    public func send<Response>(_ endpoint: Endpoint<Response>) async throws(APIError) -> Response {
        if endpoint.isProductionOnly && environment.environment != .production {
            throw .invalidRequest(
                "\(endpoint.name) is available in Production only; Apple does not offer it in \(environment.environment.label).")
        }
        let maxAttempts = endpoint.isIdempotent ? retryPolicy.maxAttempts : 1
        let deadline = Deadline.earliest(Deadline.current, callTimeout.map { Deadline(seconds: $0, from: clock.now()) })
        var attempt = 1
        var lastError: APIError?
        func deadlinePassed() -> APIError {
            .deadlineExceeded(DeadlineFailure(seconds: deadline?.seconds ?? timeout, attempts: attempt, lastProblem: lastError?.summary))
        }
        while true {
            do {
                try Task.checkCancellation()
            } catch {
                throw .cancelled
            }
            if let rateLimiter {
                // Waits for the endpoint's next free slot (a request of the last second's worth ageing out, or a 429's pause).
                let start = rateLimiter.reserve(endpoint.name, in: environment.environment, now: clock.now())
                let wait = start.timeIntervalSince(clock.now())
                if wait > 0 {
                    if let deadline, wait >= deadline.remaining(at: clock.now()) {
                        attempt -= 1
                        let limit = rateLimiter.limit(for: endpoint.name, in: environment.environment)
                        lastError = lastError ?? .invalidRequest("waiting for the rate limit of \(endpoint.name) (\(limit) per second)")
                        throw deadlinePassed()
                    }
                    do {
                        try await clock.sleep(until: start)
                    } catch {
                        throw .cancelled
                    }
                }
            }
            // Each attempt gets the usual timeout, or what is left of the deadline if that is less.
            var limit = timeout
            var limitedByDeadline = false
            if let deadline {
                let remaining = deadline.remaining(at: clock.now())
                guard remaining > 0 else {
                    attempt -= 1
                    throw deadlinePassed()
                }
                if remaining <= limit {
                    limit = remaining
                    limitedByDeadline = true
                }
            }
            let error: APIError
            switch await attemptOnce(endpoint, limit: limit) {
            case .answered(.success(let value)):
                return value
            case .answered(.failure(let failure)):
                error = failure
            case .cutShort:
                if limitedByDeadline { throw deadlinePassed() }
                error = .transport(TransportFailure(
                    kind: .timedOut, detail: "no complete answer from \(environment.baseURL.host ?? "the server") in \(DeadlineFailure.format(limit))"))
            }
            if let deadline, error.isTimeout, deadline.remaining(at: clock.now()) <= 0 { throw deadlinePassed() }
            if let rateLimiter, case .server(let failure) = error, failure.status == 429 {
                // Every request sharing the limiter holds back, not only this one.
                let until = failure.retryAfter ?? clock.now().addingTimeInterval(retryPolicy.backoff(afterAttempt: attempt, random: 0.5))
                rateLimiter.pause(endpoint.name, in: environment.environment, until: until)
            }
            guard attempt < maxAttempts, error.isRetryable, let wait = retryDelay(for: error, afterAttempt: attempt) else {
                throw error
            }
            if let deadline, wait + Self.shortestUsefulAttempt >= deadline.remaining(at: clock.now()) {
                // No time left for another try: a timeout is the deadline's doing; anything else is reported as it was.
                lastError = error
                if error.isTimeout { throw deadlinePassed() }
                throw error
            }
            do {
                try await clock.sleep(seconds: wait)
            } catch {
                throw .cancelled
            }
            lastError = error
            attempt += 1
        }
    }

    /// How long to wait before retrying, or nil when the error says not to.
    func retryDelay(for error: APIError, afterAttempt attempt: Int) -> TimeInterval? {
        if case .server(let failure) = error, let retryAfter = failure.retryAfter {
            let wait = retryAfter.timeIntervalSince(clock.now())
            if wait > retryPolicy.maxRetryAfterWait { return nil }
            return max(0, wait)
        }
        return retryPolicy.backoff(afterAttempt: attempt, random: random())
    }

    private enum AttemptOutcome<Response> {
        case answered(Result<Response, APIError>)
        /// No complete answer within the attempt's time limit.
        case cutShort
    }

    private func attemptOnce<Response>(_ endpoint: Endpoint<Response>, limit: TimeInterval) async -> AttemptOutcome<Response> {
        let token: String
        do {
            token = try await signer.token(now: clock.now())
        } catch {
            return .answered(.failure(.invalidRequest("The request token could not be signed: \(error)")))
        }
        var headers: [(name: String, value: String)] = [
            ("Authorization", "Bearer \(token)"),
            ("Accept", "application/json"),
            ("User-Agent", Self.userAgent),
        ]
        if endpoint.body != nil { headers.append(("Content-Type", endpoint.contentType)) }
        let request = HTTPRequest(
            method: endpoint.method, url: endpoint.url(baseURL: environment.baseURL), headers: headers,
            body: endpoint.body, timeout: limit)
        let transport = self.transport
        switch await TimeLimit.run(seconds: limit, { try await transport.send(request) }) {
        case .timedOut:
            return .cutShort
        case .finished(.success(let response)):
            return .answered(Self.interpret(response, for: endpoint))
        case .finished(.failure(let error)):
            switch error {
            case is CancellationError: return .answered(.failure(.cancelled))
            case let failure as TransportFailure: return .answered(.failure(.transport(failure)))
            default: return .answered(.failure(.transport(TransportFailure(kind: .other, detail: String(describing: error)))))
            }
        }
    }

    static func interpret<Response>(_ response: HTTPResponse, for endpoint: Endpoint<Response>) -> Result<Response, APIError> {
        switch response.status {
        case 200..<300:
            do {
                return .success(try endpoint.decode(response.body))
            } catch {
                return .failure(.decoding(endpoint: endpoint.name, failure: error))
            }
        case 401:
            let body = String(data: response.body.prefix(200), encoding: .utf8).flatMap { $0.isEmpty ? nil : $0 }
            return .failure(.unauthorized(statusBody: body))
        default:
            let payload = try? AppStoreJSON.decode(ErrorPayload.self, from: response.body)
            let retryAfter = response.header("Retry-After").flatMap(Self.parseRetryAfter)
            let failure = ServerFailure(
                status: response.status, code: payload?.errorCode.map(APIErrorCode.init(rawValue:)),
                message: payload?.errorMessage, retryAfter: retryAfter)
            return .failure(.server(failure))
        }
    }

    /// Apple's Retry-After is a UNIX time in milliseconds; plain seconds-from-now are accepted too.
    static func parseRetryAfter(_ value: String) -> Date? {
        guard let number = Double(value.trimmingCharacters(in: .whitespaces)), number >= 0 else { return nil }
        if number > 100_000_000_000 { return Date(checkedEpochMilliseconds: number) }
        return Date().addingTimeInterval(number)
    }

    // MARK: Environment fallback

    /// Runs `operation` here; when Production answers "transaction not found" and a fallback is set,
    /// runs it again there, and says where the record was found.
    public func withEnvironmentFallback<T: Sendable>(
        _ operation: @Sendable (AppStoreServerClient) async throws(APIError) -> T
    ) async throws(APIError) -> Located<T> {
        do {
            return Located(value: try await operation(self), environment: environment.environment, usedFallback: false)
        } catch {
            guard error.isTransactionNotFound, environment.environment == .production, let fallbackEnvironment else {
                throw error
            }
            let other = switching(to: fallbackEnvironment)
            do {
                return Located(value: try await operation(other), environment: fallbackEnvironment.environment, usedFallback: true)
            } catch let second {
                if second.isTransactionNotFound {
                    throw .server(ServerFailure(
                        status: 404, code: .transactionIdNotFound, message: nil,
                        note: "Looked in \(environment.environment.label) and \(fallbackEnvironment.environment.label)."))
                }
                throw second
            }
        }
    }
}
