import AppStoreServerAPI
@testable import DemoServer
import Foundation
import Synchronization
import Testing

/// The demo's Retention Messaging API: what Apple refuses gets Apple's status and code, reviews
/// move uploads from PENDING, and the performance test really calls the realtime URL.
@Suite struct RetentionEndpointTests {
    let fullSize = RetentionImageCheck.samplePNG(width: 3840, height: 400)
    let bullet = RetentionImageCheck.samplePNG(width: 1024, height: 1024)

    static func start(reviewDelay: TimeInterval = 0, maxImages: Int = 2000, maxMessages: Int = 2000,
                      transport: (any HTTPTransport)? = nil, stateFolder: String? = nil) async throws -> DemoServer {
        var configuration = DemoServer.Configuration()
        configuration.retention.reviewDelay = reviewDelay
        configuration.retention.maxImages = maxImages
        configuration.retention.maxMessages = maxMessages
        configuration.retention.realtimeTransport = transport
        configuration.stateFolder = stateFolder
        return try await DemoServer.start(configuration)
    }

    func code(_ body: () async throws -> Void) async -> Int64? { await apiError(body)?.code }

    @Test func imagesFollowApplesRules() async throws {
        let server = try await Self.start(maxImages: 3)
        let client = try server.plainClient()
        let first = UUID(), second = UUID()
        try await client.uploadImage(imageIdentifier: first, png: fullSize, imageSize: .fullSize)
        #expect(await code { try await client.uploadImage(imageIdentifier: first, png: fullSize, imageSize: .fullSize) } == 4_090_000)
        #expect(await code { try await client.uploadImage(imageIdentifier: UUID(), png: bullet, imageSize: .fullSize) } == 4_000_216)
        #expect(await code { try await client.uploadImage(imageIdentifier: UUID(), png: fullSize, imageSize: .bulletPoint) } == 4_000_216)
        let alpha = RetentionImageCheck.samplePNG(width: 3840, height: 400, colorType: 6)
        #expect(await code { try await client.uploadImage(imageIdentifier: UUID(), png: alpha, imageSize: .fullSize) } == 4_000_161)
        #expect(await code { try await client.uploadImage(imageIdentifier: UUID(), png: Data("not a png".utf8), imageSize: .fullSize) } == 4_000_161)
        #expect(try await server.rawCode("PUT", "/inApps/v1/messaging/image/\(UUID().lowercased)", query: "imageSize=HUGE") == 4_000_216)
        #expect(try await server.rawCode("PUT", "/inApps/v1/messaging/image/not-a-uuid") == 4_000_000)
        try await client.uploadImage(imageIdentifier: second, png: bullet, imageSize: .bulletPoint)
        let grey = RetentionImageCheck.samplePNG(width: 3840, height: 400, colorType: 0)
        let rejected = UUID()
        try await client.uploadImage(imageIdentifier: rejected, png: grey, imageSize: .fullSize)
        #expect(await code { try await client.uploadImage(imageIdentifier: UUID(), png: fullSize, imageSize: .fullSize) } == 4_030_014)

        let list = try await client.getImageList().imageIdentifiers ?? []
        #expect(list.map(\.imageIdentifier) == [first.lowercased, second.lowercased, rejected.lowercased])
        #expect(list.map(\.imageState) == [.approved, .approved, .rejected])
        #expect(list.map(\.imageSize) == [.fullSize, .bulletPoint, .fullSize])

        // An image a message shows cannot go; a deleted one is not found again.
        try await client.uploadMessage(messageIdentifier: UUID(), request: UploadMessageRequestBody(
            header: "h", body: "b", image: UploadMessageImage(imageIdentifier: first, altText: "a")))
        #expect(await code { try await client.deleteImage(imageIdentifier: first) } == 4_030_019)
        try await client.deleteImage(imageIdentifier: second)
        #expect(await code { try await client.deleteImage(imageIdentifier: second) } == 4_040_014)
        // Sandbox keeps its own images.
        #expect(try await server.plainClient(.sandbox).getImageList().imageIdentifiers?.isEmpty == true)
        await server.stop()
    }

    @Test func messagesFollowApplesRules() async throws {
        let server = try await Self.start(maxMessages: 2)
        let client = try server.plainClient()
        let long = String(repeating: "x", count: 67)
        let image = UploadMessageImage(imageIdentifier: UUID(), altText: "a")
        func refused(_ body: UploadMessageRequestBody) async -> Int64? {
            await code { try await client.uploadMessage(messageIdentifier: UUID(), request: body) }
        }
        #expect(await refused(.init(header: long, body: "b")) == 4_000_162)
        #expect(await refused(.init(header: "h", body: String(repeating: "b", count: 145))) == 4_000_163)
        #expect(await refused(.init(header: "h", body: "b", image: UploadMessageImage(imageIdentifier: UUID(), altText: String(repeating: "a", count: 151)))) == 4_000_175)
        #expect(await refused(.init(header: "h", body: "b", bulletPoints: (0..<6).map { _ in BulletPoint(text: "t", imageIdentifier: UUID(), altText: "a") })) == 4_000_218)
        #expect(await refused(.init(header: "h", body: "b", bulletPoints: [BulletPoint(text: long, imageIdentifier: UUID(), altText: "a")])) == 4_000_219)
        #expect(await refused(.init(header: "h", body: "b", headerPosition: .aboveImage)) == 4_000_224)
        #expect(try await server.rawCode("PUT", "/inApps/v1/messaging/message/\(UUID().lowercased)", body: #"{"header":1,"body":"b"}"#) == 4_000_000)

        // The images a message shows must exist, each of its place's size.
        #expect(await refused(.init(header: "Stay", body: "b", image: image)) == 4_040_014)
        let banner = UUID(), dot = UUID()
        try await client.uploadImage(imageIdentifier: banner, png: fullSize, imageSize: .fullSize)
        try await client.uploadImage(imageIdentifier: dot, png: bullet, imageSize: .bulletPoint)
        #expect(await refused(.init(header: "h", body: "b", image: UploadMessageImage(imageIdentifier: dot, altText: "a"))) == 4_000_216)
        #expect(await refused(.init(header: "h", body: "b", bulletPoints: [BulletPoint(text: "t", imageIdentifier: banner, altText: "a")])) == 4_000_216)
        #expect(await refused(.init(header: "h", body: "b", bulletPoints: [BulletPoint(text: "t", imageIdentifier: UUID(), altText: "a")])) == 4_040_014)

        let kept = UUID(), doubtful = UUID()
        try await client.uploadMessage(messageIdentifier: kept, request: .init(
            header: "Stay", body: "Keep your maps", image: UploadMessageImage(imageIdentifier: banner, altText: "a"), headerPosition: .aboveImage,
            bulletPoints: [BulletPoint(text: "Offline maps", imageIdentifier: dot, altText: "a")]))
        #expect(await code { try await client.uploadMessage(messageIdentifier: kept, request: .init(header: "h", body: "b")) } == 4_090_001)
        try await client.uploadMessage(messageIdentifier: doubtful, request: .init(header: "Guaranteed savings", body: "b"))
        #expect(await refused(.init(header: "h", body: "b")) == 4_030_016)
        let list = try await client.getMessageList().messageIdentifiers ?? []
        #expect(list.map(\.messageIdentifier) == [kept.lowercased, doubtful.lowercased])
        #expect(list.map(\.messageState) == [.approved, .rejected])
        try await client.deleteMessage(messageIdentifier: doubtful)
        #expect(await code { try await client.deleteMessage(messageIdentifier: doubtful) } == 4_040_015)
        await server.stop()
    }

    @Test func uploadsWaitInReviewBeforeUse() async throws {
        let server = try await Self.start(reviewDelay: 3600)
        let client = try server.plainClient()
        let imageId = UUID(), messageId = UUID()
        try await client.uploadImage(imageIdentifier: imageId, png: fullSize, imageSize: .fullSize)
        try await client.uploadMessage(messageIdentifier: messageId, request: .init(
            header: "h", body: "b", image: UploadMessageImage(imageIdentifier: imageId, altText: "a")))
        #expect(try await client.getImageList().imageIdentifiers?.first?.imageState == .pending)
        #expect(try await client.getMessageList().messageIdentifiers?.first?.messageState == .pending)
        #expect(await code { try await client.configureDefaultMessage(productId: "com.iapdesk.demo.pro.monthly", locale: "en-US", request: .init(messageIdentifier: messageId)) } == 4_030_017)
        await server.stop()
    }

    @Test func defaultMessagesNeedApprovedMessagesAndImages() async throws {
        let server = try await Self.start()
        let client = try server.plainClient()
        let product = "com.iapdesk.demo.pro.monthly"
        let plain = UUID(), withRejectedImage = UUID(), greyImage = UUID()
        try await client.uploadMessage(messageIdentifier: plain, request: .init(header: "Stay", body: "b"))
        try await client.uploadImage(imageIdentifier: greyImage, png: RetentionImageCheck.samplePNG(width: 3840, height: 400, colorType: 0), imageSize: .fullSize)
        try await client.uploadMessage(messageIdentifier: withRejectedImage, request: .init(
            header: "h", body: "b", image: UploadMessageImage(imageIdentifier: greyImage, altText: "a")))
        #expect(await code { try await client.configureDefaultMessage(productId: product, locale: "english", request: .init(messageIdentifier: plain)) } == 4_000_164)
        #expect(await code { try await client.configureDefaultMessage(productId: product, locale: "en-US", request: .init(messageIdentifier: UUID())) } == 4_040_015)
        #expect(await code { try await client.configureDefaultMessage(productId: product, locale: "en-US", request: .init(messageIdentifier: withRejectedImage)) } == 4_030_018)
        #expect(await code { _ = try await client.getDefaultMessage(productId: product, locale: "en-US") } == 4_040_020)
        // Apple keeps defaults for the app's auto-renewable subscriptions only.
        #expect(await code { try await client.configureDefaultMessage(productId: "com.nope.product", locale: "en-US", request: .init(messageIdentifier: plain)) } == 4_000_023)
        #expect(await code { try await client.configureDefaultMessage(productId: "com.iapdesk.demo.coins.100", locale: "en-US", request: .init(messageIdentifier: plain)) } == 4_000_023)
        try await client.configureDefaultMessage(productId: product, locale: "en-US", request: .init(messageIdentifier: plain))
        #expect(try await client.getDefaultMessage(productId: product, locale: "en-US").messageIdentifier == plain.lowercased)
        // A locale is one locale however it is cased.
        #expect(try await client.getDefaultMessage(productId: product, locale: "EN-us").messageIdentifier == plain.lowercased)
        try await client.configureDefaultMessage(productId: product, locale: "fr-fr", request: .init(messageIdentifier: plain))
        #expect(try await client.getDefaultMessage(productId: product, locale: "fr-FR").messageIdentifier == plain.lowercased)
        try await client.deleteDefaultMessage(productId: product, locale: "en-us")
        #expect(await code { _ = try await client.getDefaultMessage(productId: product, locale: "en-US") } == 4_040_020)
        try await client.configureDefaultMessage(productId: product, locale: "en-US", request: .init(messageIdentifier: plain))
        try await client.deleteDefaultMessage(productId: product, locale: "en-US")
        #expect(await code { try await client.deleteDefaultMessage(productId: product, locale: "en-US") } == 4_040_020)
        await server.stop()
    }

    @Test func realtimeURLRules() async throws {
        let server = try await Self.start()
        let production = try server.plainClient(), sandbox = try server.plainClient(.sandbox)
        #expect(await code { _ = try await sandbox.getRealtimeURL() } == 4_040_021)
        #expect(await code { try await sandbox.configureRealtimeURL(request: .init(realtimeURL: "http://example.com/r")) } == 4_000_215)
        #expect(await code { try await sandbox.configureRealtimeURL(request: .init(realtimeURL: "https://example.com/" + String(repeating: "a", count: 237))) } == 4_000_215)
        #expect(await code { try await production.configureRealtimeURL(request: .init(realtimeURL: "https://example.com/r")) } == 4_030_026)
        try await sandbox.configureRealtimeURL(request: .init(realtimeURL: "https://example.com/r"))
        #expect(try await sandbox.getRealtimeURL().realtimeURL == "https://example.com/r")
        try await sandbox.deleteRealtimeURL()
        #expect(await code { try await sandbox.deleteRealtimeURL() } == 4_040_021)
        await server.stop()
    }

    @Test func aPerformanceTestSendsSignedRequestsAndAPassUnlocksProduction() async throws {
        let realtime = RealtimeEndpoint(answer: .json(200, #"{"message":{"messageIdentifier":"a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890"}}"#))
        let server = try await Self.start(transport: realtime)
        let sandbox = try server.plainClient(.sandbox), production = try server.plainClient()
        let customer = try server.customer("Sandbox: active monthly subscription", .sandbox)
        let request = PerformanceTestRequest(originalTransactionId: customer.originalTransactionId)
        #expect(await code { _ = try await sandbox.initiatePerformanceTest(request: request) } == 4_000_211)
        #expect(try await server.rawCode("POST", "/inApps/v1/messaging/performanceTest", body: #"{"originalTransactionId":"1"}"#) == 4_000_211)
        try await sandbox.configureRealtimeURL(request: .init(realtimeURL: "https://retention.example.com/realtime"))
        #expect(await code { _ = try await sandbox.initiatePerformanceTest(request: .init(originalTransactionId: "12ab")) } == 4_000_006)

        let started = try await sandbox.initiatePerformanceTest(request: request)
        let requestId = try #require(started.requestId)
        #expect(started.config?.totalRequests == 20)
        await server.store.drain()
        let result = try await sandbox.getPerformanceTestResults(requestId: requestId)
        #expect(result.result == .pass)
        #expect(result.successRate == 100)
        #expect(result.numPending == 0)
        #expect(result.target == "https://retention.example.com/realtime")
        #expect(result.responseTimes?.p99 != nil)

        // Each request was a signed real-time request about that customer, verified against the demo's root.
        let sent = realtime.requests
        #expect(sent.count == 20)
        #expect(sent.allSatisfy { $0.url.absoluteString == "https://retention.example.com/realtime" && $0.method == "POST" })
        let firstBody = try #require(sent.first?.body)
        let body = try #require(try JSONSerialization.jsonObject(with: firstBody) as? [String: String])
        let signed = try #require(body["signedPayload"])
        let verified = await (try server.makeVerifier(environment: .sandbox)).verifyRealtimeRequest(signed)
        #expect(verified.status == .verified)
        #expect(verified.payload?.originalTransactionId == customer.originalTransactionId)
        #expect(verified.payload?.environment == .sandbox)
        #expect(verified.payload?.userLocale == "en-US")
        // Pasted as Apple posts it, the Inspector and `decode` call it a real-time request.
        let report = await (try server.makeVerifier(environment: .sandbox)).inspect(String(decoding: firstBody, as: UTF8.self))
        #expect(report.parts.map(\.kind) == ["real-time request"])
        #expect(report.parts.first?.status.isVerified == true)

        #expect(await code { _ = try await sandbox.getPerformanceTestResults(requestId: "nope") } == 4_000_212)
        #expect(await code { _ = try await sandbox.getPerformanceTestResults(requestId: UUID().lowercased) } == 4_040_018)
        try await production.configureRealtimeURL(request: .init(realtimeURL: "https://retention.example.com/production"))
        #expect(try await production.getRealtimeURL().realtimeURL == "https://retention.example.com/production")
        await server.stop()
    }

    @Test func aPerformanceTestNeedsAnAutoRenewableSubscription() async throws {
        let server = try await Self.start(transport: RealtimeEndpoint(answer: .json(200, "{}")))
        let sandbox = try server.plainClient(.sandbox)
        try await sandbox.configureRealtimeURL(request: .init(realtimeURL: "https://retention.example.com/realtime"))
        let consumable = try server.customer("Sandbox: refunded consumable", .sandbox)
        #expect(await code { _ = try await sandbox.initiatePerformanceTest(request: .init(originalTransactionId: consumable.originalTransactionId)) } == 4_000_211)
        let lifetime = try server.customer("Sandbox: lifetime unlock", .sandbox)
        #expect(await code { _ = try await sandbox.initiatePerformanceTest(request: .init(originalTransactionId: lifetime.originalTransactionId)) } == 4_000_211)
        await server.stop()
    }

    @Test func theDemosOwnEndpointIsTimedInWholeMillisecondsRoundedUp() async throws {
        let server = try await Self.start()
        let sandbox = try server.plainClient(.sandbox)
        try await sandbox.configureRealtimeURL(request: .init(realtimeURL: "https://localhost/demo/realtime"))
        let customer = try server.customer("Sandbox: active monthly subscription", .sandbox)
        let started = try await sandbox.initiatePerformanceTest(request: .init(originalTransactionId: customer.originalTransactionId))
        await server.store.drain()
        let result = try await sandbox.getPerformanceTestResults(requestId: try #require(started.requestId))
        #expect(result.result == .pass)
        #expect(result.target == "https://localhost/demo/realtime")
        // Each answer took some time, if under a millisecond: no time is 0 ms.
        let times = try #require(result.responseTimes)
        #expect([times.average, times.p50, times.p90, times.p95, times.p99].allSatisfy { ($0 ?? 0) >= 1 })
        await server.stop()
    }

    @Test func aSlowEndpointFailsAndOneRunAtATime() async throws {
        let realtime = RealtimeEndpoint(answer: .failure(TransportFailure(kind: .timedOut, detail: "no answer")), holdFirst: true)
        let server = try await Self.start(transport: realtime)
        let sandbox = try server.plainClient(.sandbox), production = try server.plainClient()
        let customer = try server.customer("Sandbox: active monthly subscription", .sandbox)
        try await sandbox.configureRealtimeURL(request: .init(realtimeURL: "https://retention.example.com/realtime"))
        let started = try await sandbox.initiatePerformanceTest(request: .init(originalTransactionId: customer.originalTransactionId))
        await realtime.firstArrived()
        let requestId = try #require(started.requestId)
        #expect(try await sandbox.getPerformanceTestResults(requestId: requestId).result == .pending)
        #expect(await code { _ = try await sandbox.initiatePerformanceTest(request: .init(originalTransactionId: customer.originalTransactionId)) } == 4_000_213)
        realtime.release()
        await server.store.drain()
        let result = try await sandbox.getPerformanceTestResults(requestId: requestId)
        #expect(result.result == .fail)
        #expect(result.successRate == 0)
        #expect(result.failures == ["TIMED_OUT": 20])
        #expect(await code { try await production.configureRealtimeURL(request: .init(realtimeURL: "https://retention.example.com/p")) } == 4_030_026)
        await server.stop()
    }

    @Test func theConfigurationIsKeptAcrossRuns() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-retention-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = try await Self.start(stateFolder: folder)
        let imageId = UUID(), messageId = UUID()
        try await first.plainClient().uploadImage(imageIdentifier: imageId, png: fullSize, imageSize: .fullSize)
        try await first.plainClient().uploadMessage(messageIdentifier: messageId, request: .init(header: "h", body: "b"))
        try await first.plainClient().configureDefaultMessage(productId: "com.iapdesk.demo.pro.monthly", locale: "fr-FR", request: .init(messageIdentifier: messageId))
        try await first.plainClient(.sandbox).configureRealtimeURL(request: .init(realtimeURL: "https://example.com/kept"))
        await first.stop()

        let second = try await Self.start(stateFolder: folder)
        #expect(try await second.plainClient().getImageList().imageIdentifiers?.map(\.imageIdentifier) == [imageId.lowercased])
        #expect(try await second.plainClient().getMessageList().messageIdentifiers?.first?.messageState == .approved)
        #expect(try await second.plainClient().getDefaultMessage(productId: "com.iapdesk.demo.pro.monthly", locale: "fr-FR").messageIdentifier == messageId.lowercased)
        #expect(try await second.plainClient(.sandbox).getRealtimeURL().realtimeURL == "https://example.com/kept")
        await second.stop()
    }
}

/// A realtime URL for tests: records each request and answers as told; can hold the first
/// request until released, so a test sees a run still going.
final class RealtimeEndpoint: HTTPTransport {
    enum Answer: Sendable {
        case json(Int, String)
        case failure(TransportFailure)
    }

    let answer: Answer
    let holdFirst: Bool
    private let state = Mutex<(requests: [AppStoreServerAPI.HTTPRequest], released: Bool, waiters: [CheckedContinuation<Void, Never>],
                               arrivals: [CheckedContinuation<Void, Never>])>(([], false, [], []))

    init(answer: Answer, holdFirst: Bool = false) {
        self.answer = answer
        self.holdFirst = holdFirst
    }

    var requests: [AppStoreServerAPI.HTTPRequest] { state.withLock { $0.requests } }

    func send(_ request: AppStoreServerAPI.HTTPRequest) async throws -> HTTPResponse {
        let (first, arrivals) = state.withLock { state in
            state.requests.append(request)
            let arrivals = state.arrivals
            state.arrivals = []
            return (state.requests.count == 1, arrivals)
        }
        for arrival in arrivals { arrival.resume() }
        if holdFirst && first {
            await withCheckedContinuation { continuation in
                let go = state.withLock { state -> Bool in
                    if state.released { return true }
                    state.waiters.append(continuation)
                    return false
                }
                if go { continuation.resume() }
            }
        }
        switch answer {
        case .json(let status, let body): return HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
        case .failure(let failure): throw failure
        }
    }

    /// Returns once a request has arrived.
    func firstArrived() async {
        await withCheckedContinuation { continuation in
            let arrived = state.withLock { state -> Bool in
                if !state.requests.isEmpty { return true }
                state.arrivals.append(continuation)
                return false
            }
            if arrived { continuation.resume() }
        }
    }

    func release() {
        let waiters = state.withLock { state in
            state.released = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
