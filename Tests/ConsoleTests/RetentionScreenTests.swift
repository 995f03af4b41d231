import AppStoreServerAPI
@testable import Console
import DemoServer
@testable import DeskCore
import Foundation
import DeskStore
import TerminalUI
import Testing

/// `:retention`: each part of the Retention Messaging configuration is read from the demo and shown
/// with its review state; errors stay in their part; Esc closes and r reads again.
@Suite struct RetentionScreenTests {
    static let fullSize = RetentionImageCheck.samplePNG(width: 3840, height: 400)
    static let greyscale = RetentionImageCheck.samplePNG(width: 1024, height: 1024, colorType: 0)
    static let subscriptions = DemoCatalog.all.filter { $0.type == .autoRenewableSubscription }.map(\.productId)

    /// What the demo holds for the screen: an approved image and message (the default of the
    /// monthly product in en-US), a message and an image its review rejects.
    struct Uploaded {
        let image = UUID(), greyImage = UUID(), message = UUID(), rejectedMessage = UUID()
    }

    static func upload(_ server: DemoServer, approve: Bool) async throws -> Uploaded {
        let uploaded = Uploaded()
        let client = try server.makeClient()
        try await client.uploadImage(imageIdentifier: uploaded.image, png: fullSize, imageSize: .fullSize)
        try await client.uploadImage(imageIdentifier: uploaded.greyImage, png: greyscale, imageSize: .bulletPoint)
        try await client.uploadMessage(messageIdentifier: uploaded.message, request: .init(
            header: "Stay with Pro", body: "Your projects stay in sync.", image: UploadMessageImage(imageIdentifier: uploaded.image, altText: "A banner")))
        try await client.uploadMessage(messageIdentifier: uploaded.rejectedMessage, request: .init(header: "Guaranteed savings", body: "Stay."))
        if approve {
            try await client.configureDefaultMessage(
                productId: DemoCatalog.proMonthly.productId, locale: "en-US", request: .init(messageIdentifier: uploaded.message))
        }
        return uploaded
    }

    /// The console as the demo opens it: the catalog's subscriptions are the products it knows.
    static func harness(reviewDelay: TimeInterval, faults: DemoFaults = DemoFaults(), callTimeout: TimeInterval? = nil) async throws -> ConsoleHarness {
        var retention = DemoRetentionSettings()
        retention.reviewDelay = reviewDelay
        let harness = try await ConsoleHarness.start(faults: faults, retention: retention, callTimeout: callTimeout)
        harness.state.retention.catalogProducts = subscriptions
        harness.state.focus = .content
        return harness
    }

    static func open(_ harness: ConsoleHarness) async throws {
        harness.send(.character(":"))
        harness.type("retention")
        harness.send(.enter)
        try await harness.settle()
    }

    @Test func loadsEachPartFromTheDemo() async throws {
        let harness = try await Self.harness(reviewDelay: 0)
        let uploaded = try await Self.upload(harness.server, approve: true)
        try await Self.open(harness)
        #expect(harness.state.overlay == .retention)
        let overview = try #require(harness.state.retention.overview)
        #expect(overview.isComplete)
        #expect(overview.environment == .production)
        #expect(overview.images.value?.map(\.imageIdentifier) == [uploaded.image.lowercased, uploaded.greyImage.lowercased])
        #expect(overview.images.value?.map(\.imageState) == [.approved, .rejected])
        #expect(overview.messages.value?.map(\.messageState) == [.approved, .rejected])
        // No realtime URL in Production is Apple's 404, shown as none rather than as an error.
        #expect(overview.realtimeURL == .loaded(nil))
        #expect(overview.slots.map(\.productId) == Self.subscriptions)
        #expect(overview.slots.allSatisfy { $0.locale == "en-US" })
        let monthly = DefaultMessageSlot(productId: DemoCatalog.proMonthly.productId, locale: "en-US")
        #expect(overview.defaults[monthly] == .loaded(uploaded.message.lowercased))
        #expect(overview.defaults.filter { $0.key != monthly }.values.allSatisfy { $0 == .loaded(nil) })
        let screen = harness.screen(width: 120, height: 36)
        #expect(screen.contains("APPROVED  \(uploaded.message.lowercased)"))
        #expect(screen.contains("REJECTED  \(uploaded.rejectedMessage.lowercased)"))
        #expect(screen.contains("REJECTED  \(uploaded.greyImage.lowercased)  Bullet point"))
        #expect(screen.contains("none configured in Production"))
        #expect(screen.contains("com.iapdesk.demo.pro.monthly      en-US  APPROVED  \(uploaded.message.lowercased)"))
        #expect(screen.contains("Products: the demo's auto-renewable subscriptions. Locales: en-US"))
        // At 80x24 the screen scrolls to its last line, and no further.
        harness.state.screenWidth = 80
        harness.state.screenHeight = 24
        harness.send(.pageDown)
        let bottom = harness.screen(width: 80, height: 24)
        #expect(bottom.contains("com.iapdesk.demo.studio.ac        en-US  none"))
        #expect(bottom.contains("lines 4-23 of 23"))
        harness.send(.down)
        #expect(harness.state.retention.scroll == 3)
        #expect(harness.state.toasts.last?.text == "This is the end.")
        await harness.stop()
    }

    @Test func aPendingUploadIsShownInReviewAndRReadsAgain() async throws {
        let harness = try await Self.harness(reviewDelay: 3600)
        try await Self.open(harness)
        #expect(harness.state.retention.overview?.messages.value?.isEmpty == true)
        #expect(harness.screen(width: 80, height: 24).contains("No messages in Production."))
        let uploaded = try await Self.upload(harness.server, approve: false)
        harness.send(.character("r"))
        #expect(harness.state.retention.request != nil)
        try await harness.settle()
        #expect(harness.state.retention.overview?.messages.value?.map(\.messageState) == [.pending, .pending])
        #expect(harness.screen(width: 120, height: 36).contains("PENDING   \(uploaded.message.lowercased)"))
        await harness.stop()
    }

    @Test func theRealtimeURLOfTheEnvironmentOnScreen() async throws {
        let harness = try await Self.harness(reviewDelay: 0)
        try await harness.server.makeClient(environment: .sandbox).configureRealtimeURL(request: .init(realtimeURL: "https://example.com/retention"))
        harness.state.environment = .sandbox
        harness.runner.run(.switchEnvironment(.sandbox))
        try await harness.pump { $0.environment == .sandbox && $0.inFlight.isEmpty }
        harness.state.focus = .content
        try await Self.open(harness)
        #expect(harness.state.retention.overview?.environment == .sandbox)
        #expect(harness.state.retention.overview?.realtimeURL == .loaded("https://example.com/retention"))
        #expect(harness.screen(width: 80, height: 24).contains("Realtime URL  https://example.com/retention"))
        await harness.stop()
    }

    @Test func aRefusedTokenIsShownInEachPartAndEscClosesTheScreen() async throws {
        var faults = DemoFaults()
        faults.rejectTokens = [.production]
        let harness = try await Self.harness(reviewDelay: 0, faults: faults)
        try await Self.open(harness)
        let overview = try #require(harness.state.retention.overview)
        #expect(overview.images.error?.httpStatus == 401)
        #expect(overview.messages.error?.httpStatus == 401)
        #expect(overview.realtimeURL.error?.httpStatus == 401)
        #expect(overview.defaults.values.allSatisfy { $0.error?.httpStatus == 401 })
        let screen = harness.screen(width: 120, height: 36)
        #expect(screen.contains("✗ HTTP 401: Apple rejected the request token. (HTTP 401 · Production)"))
        #expect(harness.state.lastError == nil, "the error stays in the screen, not the status line")
        harness.send(.escape)
        #expect(harness.state.overlay == nil)
        #expect(harness.screen(width: 80, height: 24).contains("Order, transaction or account ID"))
        await harness.stop()
    }

    @Test func aTimeoutIsShownInPlace() async throws {
        var faults = DemoFaults()
        faults.hang = true
        let harness = try await Self.harness(reviewDelay: 0, faults: faults, callTimeout: 1)
        try await Self.open(harness)
        let overview = try #require(harness.state.retention.overview)
        #expect(overview.images.error?.source?.isTimeout == true)
        #expect(overview.realtimeURL.error?.source?.isTimeout == true)
        #expect(overview.defaults.values.allSatisfy { $0.error?.source?.isTimeout == true })
        await harness.stop()
    }

    @Test func rateLimitedAndForeignAnswersStayInTheirPart() async throws {
        var state = ConsoleState(profileName: "p", environment: .production, isDemo: false, bundleId: "b", readOnly: true, themeName: "default")
        state.focus = .content
        // A profile's console knows the products of the customer on screen and of what arrived.
        state.live.rows = [StoredNotification(
            id: 1, notificationUUID: "n1", notificationType: "DID_RENEW", subtype: nil, environment: "Production", bundleId: "b", appAppleId: nil,
            transactionId: "1", originalTransactionId: "1", productId: "com.example.monthly", signedDate: nil, verdict: "verified", verdictDetail: nil,
            rawBody: Data(), decodedPayload: nil, firstReceivedAt: Date(), lastReceivedAt: Date(), remoteAddress: nil, answeredStatus: 200,
            elapsedMilliseconds: 0, forwardResult: nil, forwardStatus: nil, deliveryCount: 1, lastDeliveryId: 1)]
        state.retention.locales = ["en-US", "fr-FR"]
        let effects = CommandLine.execute(&state, "retention")
        #expect(state.overlay == .retention)
        #expect(effects.task(named: "retention") != nil)
        let request = try #require(state.retention.request)
        #expect(state.retention.overview?.slots == [
            DefaultMessageSlot(productId: "com.example.monthly", locale: "en-US"), DefaultMessageSlot(productId: "com.example.monthly", locale: "fr-FR"),
        ])
        #expect(state.retention.productsSource == "the notifications received here")
        let limited = DisplayError(APIError.server(ServerFailure(status: 429, code: .rateLimitExceeded, message: "Rate limit exceeded.")))
        _ = ConsoleReducer.reduce(&state, .answer(request: request, RetentionReducer.RetentionAnswer.part(.messages(.failure(limited)))))
        _ = ConsoleReducer.reduce(&state, .answer(request: request, RetentionReducer.RetentionAnswer.part(.images(.success([])))))
        // An answer to an earlier read is dropped.
        _ = ConsoleReducer.reduce(&state, .answer(request: request - 1, RetentionReducer.RetentionAnswer.part(.images(.failure(limited)))))
        #expect(state.retention.overview?.messages.error?.httpStatus == 429)
        #expect(state.retention.overview?.images == .loaded([]))
        #expect(state.lastError == nil)
        let backend = HeadlessBackend(width: 80, height: 24)
        Terminal(backend: backend).draw { area, buffer in ConsoleView.render(state, theme: .fallback, area: area, buffer: &buffer) }
        #expect(backend.text.contains("(Apple error 4290000 · HTTP 429)"))
        #expect(backend.text.contains("No images in Production."))
        // Esc stops the read still running.
        let closed = ConsoleReducer.reduce(&state, .key(.escape))
        #expect(closed.contains { if case .cancel(request) = $0 { return true } else { return false } })
        #expect(state.inFlight[request] == nil)
    }
}
