import AppStoreServerAPI
import Foundation

/// How the demo's Retention Messaging behaves: how long its review takes, how many images and
/// messages an app keeps, and what its performance test sends.
public struct DemoRetentionSettings: Sendable, Equatable {
    /// An uploaded image or message is PENDING this long, then APPROVED (or REJECTED, see `DemoRetention`).
    public var reviewDelay: TimeInterval = 5
    /// Apple keeps 2000 of each per app.
    public var maxImages = RetentionLimits.images
    public var maxMessages = RetentionLimits.messages
    /// The load of a performance test: smaller than Apple's, so a walkthrough sees it end.
    public var performanceTest = PerformanceTestConfig(
        maxConcurrentRequests: 4, totalRequests: 20, totalDuration: 10_000, responseTimeThreshold: 700, successRateThreshold: 95)
    /// How the performance test reaches the realtime URL; nil: over the network (tests inject one).
    public var realtimeTransport: (any HTTPTransport)?

    public init() {}

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.reviewDelay == rhs.reviewDelay && lhs.maxImages == rhs.maxImages && lhs.maxMessages == rhs.maxMessages
            && lhs.performanceTest == rhs.performanceTest && (lhs.realtimeTransport == nil) == (rhs.realtimeTransport == nil)
    }
}

/// One environment's Retention Messaging configuration at the demo's Apple.
///
/// Review: an upload is PENDING until `reviewedAt`, then APPROVED, or REJECTED by the demo's
/// stand-in for Apple's review: a message whose header or body says "guaranteed" (a promise
/// Apple's review questions), an image in greyscale (colour type 0, as if unusable in dark mode).
struct DemoRetention: Sendable {
    struct Image: Sendable {
        let size: ImageSize
        let rejected: Bool
        let reviewedAt: Date
    }

    struct Message: Sendable {
        let body: UploadMessageRequestBody
        let rejected: Bool
        let reviewedAt: Date

        /// Every image the message shows (its own and its bullet points').
        var imageIdentifiers: [String] {
            ([body.image?.imageIdentifier] + (body.bulletPoints ?? []).map(\.imageIdentifier)).compactMap { $0?.lowercased() }
        }
    }

    struct PerformanceTest: Sendable {
        let requestId: String
        let target: String
        let config: PerformanceTestConfig
        let started: Date
        var result: PerformanceTestResultResponse?
    }

    /// By lowercased UUID; uploads keep their order for lists.
    var images: [String: Image] = [:]
    var imageOrder: [String] = []
    var messages: [String: Message] = [:]
    var messageOrder: [String] = []
    /// "productId/locale" to a message identifier.
    var defaults: [String: String] = [:]
    var realtimeURL: String?
    var performanceTests: [String: PerformanceTest] = [:]

    static func rejects(_ message: UploadMessageRequestBody) -> Bool {
        (message.header + " " + message.body).lowercased().contains("guaranteed")
    }

    static func rejects(imageHeader header: RetentionImageCheck.Header) -> Bool { header.colorType == 0 }

    static func state(rejected: Bool, reviewedAt: Date, now: Date) -> RetentionReviewState {
        now < reviewedAt ? .pending : rejected ? .rejected : .approved
    }

    static func defaultKey(_ productId: String, _ locale: String) -> String { "\(productId)/\(RetentionLocale.normalized(locale))" }

    /// A run still going: started, no result, and not past its time (a run whose process ended
    /// before it did counts as over).
    func running(at now: Date) -> PerformanceTest? {
        performanceTests.values.first { test in
            test.result == nil && now < test.started.addingTimeInterval(Double(test.config.totalDuration ?? 0) / 1000 + 60)
        }
    }

    /// Some performance test passed in this environment.
    var hasPassingTest: Bool { performanceTests.values.contains { $0.result?.result == .pass } }

    mutating func apply(_ change: DemoRetentionChange, at date: Date) {
        switch change {
        case .imageUploaded(let id, let size, let rejected, let reviewedAt):
            guard images[id] == nil else { return }
            images[id] = Image(size: size, rejected: rejected, reviewedAt: reviewedAt)
            imageOrder.append(id)
        case .imageDeleted(let id):
            images[id] = nil
            imageOrder.removeAll { $0 == id }
        case .messageUploaded(let id, let body, let rejected, let reviewedAt):
            guard messages[id] == nil else { return }
            messages[id] = Message(body: body, rejected: rejected, reviewedAt: reviewedAt)
            messageOrder.append(id)
        case .messageDeleted(let id):
            messages[id] = nil
            messageOrder.removeAll { $0 == id }
            defaults = defaults.filter { $0.value != id }
        case .defaultSet(let productId, let locale, let messageId):
            defaults[Self.defaultKey(productId, locale)] = messageId
        case .defaultDeleted(let productId, let locale):
            defaults[Self.defaultKey(productId, locale)] = nil
        case .realtimeURLSet(let url):
            realtimeURL = url
        case .realtimeURLDeleted:
            realtimeURL = nil
        case .performanceTestStarted(let requestId, let target, let config):
            performanceTests[requestId] = PerformanceTest(requestId: requestId, target: target, config: config, started: date)
        case .performanceTestFinished(let requestId, let result):
            performanceTests[requestId]?.result = result
        }
    }
}

/// One accepted Retention Messaging write, as journaled and replayed.
enum DemoRetentionChange: Codable, Sendable, Equatable {
    case imageUploaded(id: String, size: ImageSize, rejected: Bool, reviewedAt: Date)
    case imageDeleted(id: String)
    case messageUploaded(id: String, body: UploadMessageRequestBody, rejected: Bool, reviewedAt: Date)
    case messageDeleted(id: String)
    case defaultSet(productId: String, locale: String, messageId: String)
    case defaultDeleted(productId: String, locale: String)
    case realtimeURLSet(String)
    case realtimeURLDeleted
    case performanceTestStarted(requestId: String, target: String, config: PerformanceTestConfig)
    case performanceTestFinished(requestId: String, result: PerformanceTestResultResponse)
}
