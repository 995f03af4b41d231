import Foundation

/// The one client every pane, command and test uses to reach the App Store Server API.
public struct AppStoreServerClient: Sendable {
    public let environment: ServerEnvironment
    /// Where a lookup goes when `environment` answers "not found" (Production's Sandbox).
    public let fallbackEnvironment: ServerEnvironment?
    public let retryPolicy: RetryPolicy
    public let timeout: TimeInterval
    private let signer: RequestTokenSigner
    private let transport: any HTTPTransport
    private let clock: any RetryClock
    private let random: @Sendable () -> Double

    public static let userAgent = "iapdesk/0.1"

    public init(
        credentials: Credentials,
        environment: ServerEnvironment,
        fallbackEnvironment: ServerEnvironment? = nil,
        transport: any HTTPTransport = URLSessionTransport(),
        retryPolicy: RetryPolicy = RetryPolicy(),
        timeout: TimeInterval = 30,
        clock: any RetryClock = SystemRetryClock(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) throws {
        self.init(
            signer: try RequestTokenSigner(credentials: credentials), environment: environment,
            fallbackEnvironment: fallbackEnvironment, transport: transport, retryPolicy: retryPolicy,
            timeout: timeout, clock: clock, random: random)
    }

    init(
        signer: RequestTokenSigner, environment: ServerEnvironment, fallbackEnvironment: ServerEnvironment?,
        transport: any HTTPTransport, retryPolicy: RetryPolicy, timeout: TimeInterval, clock: any RetryClock,
        random: @escaping @Sendable () -> Double
    ) {
        self.signer = signer
        self.environment = environment
        self.fallbackEnvironment = fallbackEnvironment
        self.transport = transport
        self.retryPolicy = retryPolicy
        self.timeout = timeout
        self.clock = clock
        self.random = random
    }

    /// Apple's Production with the documented Sandbox fallback, or Apple's Sandbox.
    public static func apple(
        credentials: Credentials, environment: AppStoreEnvironment, transport: any HTTPTransport = URLSessionTransport()
    ) throws -> AppStoreServerClient {
        let primary: ServerEnvironment = environment == .sandbox ? .sandbox : .production
        return try AppStoreServerClient(
            credentials: credentials, environment: primary,
            fallbackEnvironment: environment == .sandbox ? nil : .sandbox, transport: transport)
    }

    /// The same client pointed at another environment (sharing key, transport and settings).
    public func switching(to environment: ServerEnvironment, fallback: ServerEnvironment? = nil) -> AppStoreServerClient {
        AppStoreServerClient(
            signer: signer, environment: environment, fallbackEnvironment: fallback, transport: transport,
            retryPolicy: retryPolicy, timeout: timeout, clock: clock, random: random)
    }

    // MARK: Sending

    /// Sends one endpoint call: signs, retries what may be retried, maps every failure to `APIError`.
    public func send<Response>(_ endpoint: Endpoint<Response>) async throws(APIError) -> Response {
        if endpoint.isProductionOnly && environment.environment != .production {
            throw .invalidRequest(
                "\(endpoint.name) is available in Production only; Apple does not offer it in \(environment.environment.label).")
        }
        let maxAttempts = endpoint.isIdempotent ? retryPolicy.maxAttempts : 1
        var attempt = 1
        while true {
            do {
                try Task.checkCancellation()
            } catch {
                throw .cancelled
            }
            let outcome = await attemptOnce(endpoint)
            switch outcome {
            case .success(let value):
                return value
            case .failure(let error):
                guard attempt < maxAttempts, error.isRetryable, let wait = retryDelay(for: error, afterAttempt: attempt) else {
                    throw error
                }
                do {
                    try await clock.sleep(seconds: wait)
                } catch {
                    throw .cancelled
                }
                attempt += 1
            }
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

    private func attemptOnce<Response>(_ endpoint: Endpoint<Response>) async -> Result<Response, APIError> {
        let token: String
        do {
            token = try await signer.token(now: clock.now())
        } catch {
            return .failure(.invalidRequest("The request token could not be signed: \(error)"))
        }
        var headers: [(name: String, value: String)] = [
            ("Authorization", "Bearer \(token)"),
            ("Accept", "application/json"),
            ("User-Agent", Self.userAgent),
        ]
        if endpoint.body != nil { headers.append(("Content-Type", "application/json")) }
        let request = HTTPRequest(
            method: endpoint.method, url: endpoint.url(baseURL: environment.baseURL), headers: headers,
            body: endpoint.body, timeout: timeout)
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch is CancellationError {
            return .failure(.cancelled)
        } catch let failure as TransportFailure {
            return .failure(.transport(failure))
        } catch {
            return .failure(.transport(TransportFailure(kind: .other, detail: String(describing: error))))
        }
        return Self.interpret(response, for: endpoint)
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
