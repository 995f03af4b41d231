@testable import AppStoreServerAPI
import Foundation
import Testing

@Suite struct URLSessionTransportTests {
    @Test func refusedConnectionIsATransportFailure() async throws {
        // Port 9 (discard) on loopback has no listener on these machines.
        let transport = URLSessionTransport()
        let request = HTTPRequest(method: "GET", url: URL(string: "http://127.0.0.1:9/inApps/v1/transactions/1")!, timeout: 5)
        do {
            _ = try await transport.send(request)
            Issue.record("nothing listens on port 9")
        } catch let failure as TransportFailure {
            #expect(failure.kind == .cannotConnect || failure.kind == .other)
            #expect(!failure.summary.isEmpty)
        }
    }

    @Test func urlErrorsMapToKinds() {
        #expect(URLSessionTransport.failure(for: URLError(.timedOut)).kind == .timedOut)
        #expect(URLSessionTransport.failure(for: URLError(.cannotFindHost)).kind == .dns)
        #expect(URLSessionTransport.failure(for: URLError(.serverCertificateUntrusted)).kind == .tls)
        #expect(URLSessionTransport.failure(for: URLError(.networkConnectionLost)).kind == .connectionLost)
        #expect(URLSessionTransport.failure(for: URLError(.cannotConnectToHost)).kind == .cannotConnect)
    }
}
