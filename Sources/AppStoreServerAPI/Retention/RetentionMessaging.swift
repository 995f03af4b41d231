import Foundation

// Requests and answers of the Retention Messaging API (same host and token as the App Store Server
// API). Identifiers are UUIDs; they are kept as strings, lowercased when iapdesk makes them, so a
// list from Apple never fails to decode over the spelling of one.

/// What an image is for (`imageSize`).
public enum ImageSize: OpenEnum {
    case fullSize, bulletPoint
    case unknown(String)
    public typealias RawValue = String
    public static let catalog: [(value: Self, raw: String, label: String)] = [
        (.fullSize, "FULL_SIZE", "Full size"),
        (.bulletPoint, "BULLET_POINT", "Bullet point"),
    ]
}

/// Apple's review of an uploaded image or message (`imageState`, `messageState`).
public enum RetentionReviewState: OpenEnum {
    case pending, approved, rejected
    case unknown(String)
    public typealias RawValue = String
    public static let catalog: [(value: Self, raw: String, label: String)] = [
        (.pending, "PENDING", "In review"),
        (.approved, "APPROVED", "Approved"),
        (.rejected, "REJECTED", "Rejected"),
    ]
}

/// Apple's names for the two review states, which share their values.
public typealias ImageState = RetentionReviewState
public typealias MessageState = RetentionReviewState

/// Where a message's header goes (`headerPosition`).
public enum HeaderPosition: OpenEnum {
    case aboveBody, aboveImage
    case unknown(String)
    public typealias RawValue = String
    public static let catalog: [(value: Self, raw: String, label: String)] = [
        (.aboveBody, "ABOVE_BODY", "Above the body"),
        (.aboveImage, "ABOVE_IMAGE", "Above the image"),
    ]
}

/// The outcome of a performance test of the realtime URL (`result`).
public enum PerformanceTestStatus: OpenEnum {
    case pending, pass, fail
    case unknown(String)
    public typealias RawValue = String
    public static let catalog: [(value: Self, raw: String, label: String)] = [
        (.pending, "PENDING", "Running"),
        (.pass, "PASS", "Passed"),
        (.fail, "FAIL", "Failed"),
    ]
}

/// Apple's limits on what a message holds (appstore-api.md 4.3; Apple counts characters).
public enum RetentionLimits {
    public static let headerLength = 66
    public static let bodyLength = 144
    public static let bulletPointTextLength = 66
    public static let altTextLength = 150
    public static let bulletPoints = 5
    public static let realtimeURLLength = 256
    /// Images and messages an app may keep.
    public static let images = 2000
    public static let messages = 2000
}

// MARK: Requests

/// Body of Upload Message.
public struct UploadMessageRequestBody: Codable, Sendable, Equatable {
    public var header: String
    public var body: String
    public var image: UploadMessageImage?
    public var headerPosition: HeaderPosition?
    public var bulletPoints: [BulletPoint]?

    public init(
        header: String, body: String, image: UploadMessageImage? = nil, headerPosition: HeaderPosition? = nil,
        bulletPoints: [BulletPoint]? = nil
    ) {
        self.header = header
        self.body = body
        self.image = image
        self.headerPosition = headerPosition
        self.bulletPoints = bulletPoints
    }
}

/// A message's image: an uploaded FULL_SIZE image and its text for screen readers.
public struct UploadMessageImage: Codable, Sendable, Equatable {
    public var imageIdentifier: String
    public var altText: String

    public init(imageIdentifier: UUID, altText: String) {
        self.imageIdentifier = imageIdentifier.lowercased
        self.altText = altText
    }
}

/// One bullet point: its text and a BULLET_POINT image with alt text.
public struct BulletPoint: Codable, Sendable, Equatable {
    public var text: String
    public var imageIdentifier: String
    public var altText: String

    public init(text: String, imageIdentifier: UUID, altText: String) {
        self.text = text
        self.imageIdentifier = imageIdentifier.lowercased
        self.altText = altText
    }
}

/// Body of Configure Default Message.
public struct DefaultConfigurationRequest: Codable, Sendable, Equatable {
    public var messageIdentifier: String?
    public init(messageIdentifier: UUID) { self.messageIdentifier = messageIdentifier.lowercased }
}

/// Body of Configure Realtime URL.
public struct RealtimeUrlRequest: Codable, Sendable, Equatable {
    public var realtimeURL: String
    public init(realtimeURL: String) { self.realtimeURL = realtimeURL }
}

/// Body of Initiate Performance Test: a Sandbox subscription Apple uses in the requests it sends.
public struct PerformanceTestRequest: Codable, Sendable, Equatable {
    public var originalTransactionId: String
    public init(originalTransactionId: String) { self.originalTransactionId = originalTransactionId }
}

// MARK: Responses

public struct GetImageListResponse: Codable, Sendable, Equatable {
    public var imageIdentifiers: [GetImageListResponseItem]?
    public init(imageIdentifiers: [GetImageListResponseItem]? = nil) { self.imageIdentifiers = imageIdentifiers }
}

public struct GetImageListResponseItem: Codable, Sendable, Equatable {
    public var imageIdentifier: String?
    public var imageState: RetentionReviewState?
    public var imageSize: ImageSize?

    public init(imageIdentifier: String? = nil, imageState: RetentionReviewState? = nil, imageSize: ImageSize? = nil) {
        self.imageIdentifier = imageIdentifier
        self.imageState = imageState
        self.imageSize = imageSize
    }
}

public struct GetMessageListResponse: Codable, Sendable, Equatable {
    public var messageIdentifiers: [GetMessageListResponseItem]?
    public init(messageIdentifiers: [GetMessageListResponseItem]? = nil) { self.messageIdentifiers = messageIdentifiers }
}

public struct GetMessageListResponseItem: Codable, Sendable, Equatable {
    public var messageIdentifier: String?
    public var messageState: RetentionReviewState?

    public init(messageIdentifier: String? = nil, messageState: RetentionReviewState? = nil) {
        self.messageIdentifier = messageIdentifier
        self.messageState = messageState
    }
}

public struct DefaultConfigurationResponse: Codable, Sendable, Equatable {
    public var messageIdentifier: String?
    public init(messageIdentifier: String? = nil) { self.messageIdentifier = messageIdentifier }
}

public struct RealtimeUrlResponse: Codable, Sendable, Equatable {
    public var realtimeURL: String?
    public init(realtimeURL: String? = nil) { self.realtimeURL = realtimeURL }
}

/// How Apple runs a performance test: the load it sends and what passing takes.
public struct PerformanceTestConfig: Codable, Sendable, Equatable {
    public var maxConcurrentRequests: Int64?
    public var totalRequests: Int64?
    /// Milliseconds the test runs for.
    public var totalDuration: Int64?
    /// Milliseconds within which an answer counts as on time.
    public var responseTimeThreshold: Int64?
    /// Percentage of on-time successful answers needed to pass.
    public var successRateThreshold: Int32?

    public init(
        maxConcurrentRequests: Int64? = nil, totalRequests: Int64? = nil, totalDuration: Int64? = nil,
        responseTimeThreshold: Int64? = nil, successRateThreshold: Int32? = nil
    ) {
        self.maxConcurrentRequests = maxConcurrentRequests
        self.totalRequests = totalRequests
        self.totalDuration = totalDuration
        self.responseTimeThreshold = responseTimeThreshold
        self.successRateThreshold = successRateThreshold
    }
}

public struct PerformanceTestResponse: Codable, Sendable, Equatable {
    public var config: PerformanceTestConfig?
    public var requestId: String?

    public init(config: PerformanceTestConfig? = nil, requestId: String? = nil) {
        self.config = config
        self.requestId = requestId
    }
}

/// Response times of a performance test, in milliseconds.
public struct PerformanceTestResponseTimes: Codable, Sendable, Equatable {
    public var average: Int64?
    public var p50: Int64?
    public var p90: Int64?
    public var p95: Int64?
    public var p99: Int64?

    public init(average: Int64? = nil, p50: Int64? = nil, p90: Int64? = nil, p95: Int64? = nil, p99: Int64? = nil) {
        self.average = average
        self.p50 = p50
        self.p90 = p90
        self.p95 = p95
        self.p99 = p99
    }
}

public struct PerformanceTestResultResponse: Codable, Sendable, Equatable {
    public var config: PerformanceTestConfig?
    /// The URL that was tested.
    public var target: String?
    public var result: PerformanceTestStatus?
    /// Percentage of requests answered successfully in time.
    public var successRate: Int32?
    /// Requests still waiting for an answer.
    public var numPending: Int32?
    public var responseTimes: PerformanceTestResponseTimes?
    /// Failed requests counted by send-attempt result (raw values such as TIMED_OUT).
    public var failures: [String: Int32]?

    public init() {}

    /// `failures` with typed keys, largest count first.
    public var failureCounts: [(result: SendAttemptResult, count: Int32)] {
        (failures ?? [:]).map { (SendAttemptResult($0.key), $0.value) }.sorted { $0.count != $1.count ? $0.count > $1.count : $0.result.rawValue < $1.result.rawValue }
    }
}

// MARK: The real-time request Apple sends

/// What Apple POSTs to the realtime URL (Get Retention Message): `{"signedPayload": JWS}`.
public struct RealtimeRequestBody: Codable, Sendable, Equatable {
    public var signedPayload: String?
    public init(signedPayload: String? = nil) { self.signedPayload = signedPayload }
}

/// The decoded `signedPayload` of a real-time request: which customer is about to see a
/// retention message, for which product, in which language.
public struct RealtimeRequestPayload: Codable, Sendable, Equatable {
    public var originalTransactionId: String?
    public var appAppleId: Int64?
    public var productId: String?
    public var userLocale: String?
    public var requestIdentifier: String?
    public var signedDate: Date?
    public var environment: AppStoreEnvironment?

    public init() {}
}

/// The answer to a real-time request: one of a message, a switch to another product, a
/// promotional offer, or Advanced Commerce data.
public struct RealtimeResponseBody: Codable, Sendable, Equatable {
    public var message: RealtimeMessage?
    public var alternateProduct: AlternateProduct?
    public var promotionalOffer: PromotionalOffer?
    public var advancedCommerceInfo: RealtimeAdvancedCommerceInfo?

    public init(message: RealtimeMessage? = nil) { self.message = message }
}

public struct RealtimeMessage: Codable, Sendable, Equatable {
    public var messageIdentifier: String?
    public init(messageIdentifier: String? = nil) { self.messageIdentifier = messageIdentifier }
}

public struct AlternateProduct: Codable, Sendable, Equatable {
    public var messageIdentifier: String?
    public var productId: String?
    public var billingPlanType: BillingPlanType?
    public init() {}
}

public struct PromotionalOffer: Codable, Sendable, Equatable {
    public var messageIdentifier: String?
    public var promotionalOfferSignatureV2: String?
    public var promotionalOfferSignatureV1: PromotionalOfferSignatureV1?
    public init() {}
}

public struct PromotionalOfferSignatureV1: Codable, Sendable, Equatable {
    public var encodedSignature: String?
    public var productId: String?
    public var nonce: String?
    public var timestamp: Int64?
    public var keyId: String?
    public var offerIdentifier: String?
    public var appAccountToken: String?
    public init() {}
}

public struct RealtimeAdvancedCommerceInfo: Codable, Sendable, Equatable {
    public var messageIdentifier: String?
    public var advancedCommerceData: String?
    public init() {}
}

extension UUID {
    /// The UUID as iapdesk writes it on the wire and in output: lowercase.
    public var lowercased: String { uuidString.lowercased() }
}
