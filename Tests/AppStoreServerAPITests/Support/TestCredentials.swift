@testable import AppStoreServerAPI
import Crypto
import Foundation

enum TestCredentials {
    static let key = P256.Signing.PrivateKey()
    static let credentials = Credentials(
        issuerId: "57246542-96fe-1a63-e053-0824d011072a", keyId: "2X9R4HXF34",
        bundleId: "com.example", signingKey: SigningKey(key))

    static func client(
        _ transport: MockTransport, environment: ServerEnvironment = .production, fallback: ServerEnvironment? = nil,
        retry: RetryPolicy = RetryPolicy(), clock: TestClock = TestClock()
    ) throws -> AppStoreServerClient {
        try AppStoreServerClient(
            credentials: credentials, environment: environment, fallbackEnvironment: fallback, transport: transport,
            retryPolicy: retry, clock: clock, random: { 0.5 })
    }
}
