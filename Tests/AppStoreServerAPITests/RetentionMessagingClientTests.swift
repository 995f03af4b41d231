@testable import AppStoreServerAPI
import Foundation
import Testing

/// The Retention Messaging API through an injected transport: Apple's sample answers decode field
/// by field, and each endpoint puts on the wire what Apple's documentation says.
@Suite struct RetentionMessagingClientTests {
    let base = "https://api.storekit.apple.com"
    let sandboxBase = "https://api.storekit-sandbox.apple.com"
    let id = UUID(uuidString: "A1B2C3D4-E5F6-7890-A1B2-C3D4E5F67890")!

    func run<T>(
        _ reply: MockTransport.Reply, environment: ServerEnvironment = .production, fallback: ServerEnvironment? = nil,
        _ call: (AppStoreServerClient) async throws(APIError) -> T
    ) async throws -> (T, HTTPRequest) {
        let transport = MockTransport([reply])
        let client = try TestCredentials.client(transport, environment: environment, fallback: fallback, retry: .none)
        let value = try await call(client)
        return (value, try #require(transport.lastRequest))
    }

    func body(_ request: HTTPRequest) -> String? { request.body.map { String(decoding: $0, as: UTF8.self) } }

    // MARK: Apple's fixtures

    @Test func imageListFixture() throws {
        let list = try AppStoreJSON.decode(GetImageListResponse.self, from: Fixture.model("getImageListResponse"))
        let item = try #require(list.imageIdentifiers?.first)
        #expect(item.imageIdentifier == "a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890")
        #expect(item.imageState == .approved)
        #expect(item.imageSize == .fullSize)
    }

    @Test func messageListFixture() throws {
        let list = try AppStoreJSON.decode(GetMessageListResponse.self, from: Fixture.model("getMessageListResponse"))
        #expect(list.messageIdentifiers?.first?.messageIdentifier == "a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890")
        #expect(list.messageIdentifiers?.first?.messageState == .approved)
    }

    @Test func defaultMessageAndRealtimeURLFixtures() throws {
        #expect(try AppStoreJSON.decode(DefaultConfigurationResponse.self, from: Fixture.model("getDefaultMessageResponse")).messageIdentifier
            == "a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890")
        #expect(try AppStoreJSON.decode(RealtimeUrlResponse.self, from: Fixture.model("getRealtimeUrlResponse")).realtimeURL
            == "https://example.com/realtime")
    }

    @Test func performanceTestFixtures() throws {
        let started = try AppStoreJSON.decode(PerformanceTestResponse.self, from: Fixture.model("performanceTestResponse"))
        #expect(started.requestId == "c4b87a1d-2e3f-4a5b-9c6d-7e8f9a0b1c2d")
        #expect(started.config == PerformanceTestConfig(
            maxConcurrentRequests: 10, totalRequests: 100, totalDuration: 60000, responseTimeThreshold: 500, successRateThreshold: 95))
        let result = try AppStoreJSON.decode(PerformanceTestResultResponse.self, from: Fixture.model("performanceTestResultResponse"))
        #expect(result.target == "https://example.com/retention")
        #expect(result.result == .pass)
        #expect(result.successRate == 98)
        #expect(result.numPending == 0)
        #expect(result.responseTimes == PerformanceTestResponseTimes(average: 120, p50: 100, p90: 200, p95: 250, p99: 400))
        #expect(result.failureCounts.map(\.result) == [.noResponse, .timedOut])
        #expect(result.failureCounts.map(\.count) == [1, 1])
        #expect(result.config?.totalRequests == 100)
    }

    @Test func decodedRealtimeRequestFixture() throws {
        let request = try AppStoreJSON.decode(RealtimeRequestPayload.self, from: Fixture.model("decodedRealtimeRequest"))
        #expect(request.originalTransactionId == "99371282")
        #expect(request.appAppleId == 531_412)
        #expect(request.productId == "com.example.product")
        #expect(request.userLocale == "en-US")
        #expect(request.requestIdentifier == "3db5c98d-8acf-4e29-831e-8e1f82f9f6e9")
        #expect(request.environment == .localTesting)
        #expect(request.signedDate?.epochMilliseconds == 1_698_148_900_000)
    }

    @Test func unknownStatesAreKeptNotRefused() throws {
        let json = #"{"imageIdentifiers":[{"imageIdentifier":"x","imageState":"ARCHIVED","imageSize":"HUGE"}]}"#
        let item = try #require(try AppStoreJSON.decode(GetImageListResponse.self, from: Data(json.utf8)).imageIdentifiers?.first)
        #expect(item.imageState == .unknown("ARCHIVED"))
        #expect(item.imageSize == .unknown("HUGE"))
    }

    // MARK: Requests on the wire

    @Test func uploadImageSendsThePNGItself() async throws {
        let png = Data([0x89, 0x50, 0x4E, 0x47, 1, 2, 3])
        let (_, sent) = try await run(.response(HTTPResponse(status: 200))) { client throws(APIError) in
            try await client.uploadImage(imageIdentifier: id, png: png, imageSize: .bulletPoint)
        }
        #expect(sent.method == "PUT")
        #expect(sent.url.absoluteString == "\(base)/inApps/v1/messaging/image/a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890?imageSize=BULLET_POINT")
        #expect(sent.header("Content-Type") == "image/png")
        #expect(sent.body == png)
        #expect(sent.header("Authorization")?.hasPrefix("Bearer ") == true)
    }

    @Test func deletesAndListsOfImagesAndMessages() async throws {
        let calls: [(String, String, (AppStoreServerClient) async throws(APIError) -> Void)] = [
            ("DELETE", "/inApps/v1/messaging/image/a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890", { c throws(APIError) in try await c.deleteImage(imageIdentifier: id) }),
            ("GET", "/inApps/v1/messaging/image/list", { c throws(APIError) in _ = try await c.getImageList() }),
            ("DELETE", "/inApps/v1/messaging/message/a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890", { c throws(APIError) in try await c.deleteMessage(messageIdentifier: id) }),
            ("GET", "/inApps/v1/messaging/message/list", { c throws(APIError) in _ = try await c.getMessageList() }),
            ("DELETE", "/inApps/v1/messaging/default/com.example.product/en-US", { c throws(APIError) in
                try await c.deleteDefaultMessage(productId: "com.example.product", locale: "en-US") }),
            ("GET", "/inApps/v1/messaging/default/com.example.product/en-US", { c throws(APIError) in
                _ = try await c.getDefaultMessage(productId: "com.example.product", locale: "en-US") }),
            ("DELETE", "/inApps/v1/messaging/realtime/url", { c throws(APIError) in try await c.deleteRealtimeURL() }),
            ("GET", "/inApps/v1/messaging/realtime/url", { c throws(APIError) in _ = try await c.getRealtimeURL() }),
        ]
        for (method, path, call) in calls {
            let (_, sent) = try await run(MockTransport.json(200, "{}")) { client throws(APIError) in try await call(client) }
            #expect(sent.method == method)
            #expect(sent.url.absoluteString == base + path)
            #expect(sent.body == nil)
        }
    }

    @Test func uploadMessageWithImageAndBulletPoints() async throws {
        let request = UploadMessageRequestBody(
            header: "Stay with us", body: "Your plan keeps every feature.",
            image: UploadMessageImage(imageIdentifier: id, altText: "A happy cat"), headerPosition: .aboveImage,
            bulletPoints: [BulletPoint(text: "Offline maps", imageIdentifier: id, altText: "Map")])
        let (_, sent) = try await run(.response(HTTPResponse(status: 200))) { client throws(APIError) in
            try await client.uploadMessage(messageIdentifier: id, request: request)
        }
        #expect(sent.method == "PUT")
        #expect(sent.url.absoluteString == "\(base)/inApps/v1/messaging/message/a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890")
        #expect(sent.header("Content-Type") == "application/json")
        #expect(body(sent) == #"{"body":"Your plan keeps every feature.","bulletPoints":[{"altText":"Map","imageIdentifier":"a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890","text":"Offline maps"}],"header":"Stay with us","headerPosition":"ABOVE_IMAGE","image":{"altText":"A happy cat","imageIdentifier":"a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890"}}"#)
    }

    @Test func configureDefaultMessageAndRealtimeURL() async throws {
        let (_, configured) = try await run(.response(HTTPResponse(status: 200))) { client throws(APIError) in
            try await client.configureDefaultMessage(productId: "com.example.product", locale: "en-US", request: .init(messageIdentifier: id))
        }
        #expect(configured.method == "PUT")
        #expect(configured.url.absoluteString == "\(base)/inApps/v1/messaging/default/com.example.product/en-US")
        #expect(body(configured) == #"{"messageIdentifier":"a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890"}"#)
        let (_, url) = try await run(.response(HTTPResponse(status: 200))) { client throws(APIError) in
            try await client.configureRealtimeURL(request: .init(realtimeURL: "https://example.com/realtime"))
        }
        #expect(url.url.absoluteString == "\(base)/inApps/v1/messaging/realtime/url")
        #expect(body(url) == #"{"realtimeURL":"https://example.com/realtime"}"#)
    }

    @Test func performanceTestsGoToSandboxEvenFromAProductionClient() async throws {
        let (started, sent) = try await run(MockTransport.fixture("performanceTestResponse"), fallback: .sandbox) { client throws(APIError) in
            try await client.initiatePerformanceTest(request: .init(originalTransactionId: "2000000000001"))
        }
        #expect(sent.method == "POST")
        #expect(sent.url.absoluteString == "\(sandboxBase)/inApps/v1/messaging/performanceTest")
        #expect(body(sent) == #"{"originalTransactionId":"2000000000001"}"#)
        #expect(started.requestId == "c4b87a1d-2e3f-4a5b-9c6d-7e8f9a0b1c2d")
        let (result, read) = try await run(MockTransport.fixture("performanceTestResultResponse"), environment: .sandbox) { client throws(APIError) in
            try await client.getPerformanceTestResults(requestId: "c4b87a1d-2e3f-4a5b-9c6d-7e8f9a0b1c2d")
        }
        #expect(read.url.absoluteString == "\(sandboxBase)/inApps/v1/messaging/performanceTest/result/c4b87a1d-2e3f-4a5b-9c6d-7e8f9a0b1c2d")
        #expect(result.result == .pass)
    }

    @Test func aProductionOnlyClientRefusesAPerformanceTestWithoutARequest() async throws {
        let transport = MockTransport()
        let client = try TestCredentials.client(transport, environment: .production)
        await #expect(throws: APIError.self) {
            _ = try await client.initiatePerformanceTest(request: .init(originalTransactionId: "1"))
        }
        #expect(transport.requests.isEmpty)
    }

    @Test func appleErrorsCarryTheirNameAndAHint() async throws {
        let transport = MockTransport([MockTransport.json(409, #"{"errorCode":4090000,"errorMessage":"Image already exists."}"#)])
        let client = try TestCredentials.client(transport, retry: .none)
        do {
            try await client.uploadImage(imageIdentifier: id, png: Data([1]), imageSize: .fullSize)
            Issue.record("a 409 must throw")
        } catch {
            guard case .server(let failure) = error else { Issue.record("expected a server error, got \(error)"); return }
            #expect(failure.status == 409)
            #expect(failure.code == .imageAlreadyExists)
            #expect(failure.code?.hint.contains("new UUID") == true)
        }
        #expect(transport.requests.count == 1)
    }

    @Test func everyRetentionErrorCodeHasAHint() {
        let codes: [Int64] = [4000161, 4000162, 4000163, 4000164, 4000175, 4000211, 4000212, 4000213, 4000215, 4000216, 4000218,
                              4000219, 4000224, 4030014, 4030016, 4030017, 4030018, 4030019, 4030026, 4040014, 4040015, 4040018,
                              4040020, 4040021, 4090000, 4090001]
        for raw in codes {
            let code = APIErrorCode(rawValue: raw)
            #expect(code.entry != nil, "\(raw) is in the catalog")
            #expect(code.hint.count > 20, "\(raw) has a hint a person can act on")
        }
    }

    @Test func retentionEndpointsHaveApplesRates() {
        let limiter = RequestRateLimiter()
        #expect(limiter.limit(for: "Configure Default Message", in: .production) == 10)
        #expect(limiter.limit(for: "Upload Image", in: .production) == 1)
        #expect(limiter.limit(for: "Get Performance Test Results", in: .production) == 1)
        #expect(limiter.limit(for: "Get Message List", in: .sandbox) == 1)
    }
}
