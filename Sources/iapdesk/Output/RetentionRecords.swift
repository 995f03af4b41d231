import AppStoreServerAPI
import DeskCore
import Foundation

// `iapdesk retention … --json`: Apple's answers as typed records, states as Apple's raw values.

struct RetentionImageRecord: Encodable {
    var imageIdentifier: String?
    var imageSize: String?
    var imageState: String?

    init(_ item: GetImageListResponseItem) {
        (imageIdentifier, imageSize, imageState) = (item.imageIdentifier, item.imageSize?.rawValue, item.imageState?.rawValue)
    }
}

struct RetentionImageListOutput: Encodable {
    var environment: String
    var images: [RetentionImageRecord]
}

struct RetentionMessageRecord: Encodable {
    var messageIdentifier: String?
    var messageState: String?
    /// What was uploaded, from this machine's audit ledger (Apple's list has no text); nil when
    /// the message was not uploaded from here.
    var fromLedger: RetentionUploadRecord?

    init(_ item: GetMessageListResponseItem, uploaded: UploadedMessage?) {
        (messageIdentifier, messageState) = (item.messageIdentifier, item.messageState?.rawValue)
        fromLedger = uploaded.map(RetentionUploadRecord.init)
    }
}

struct RetentionUploadRecord: Encodable {
    var header: String
    var body: String
    var imageIdentifier: String?
    var bulletImageIdentifiers: [String]

    init(_ message: UploadedMessage) {
        (header, body, imageIdentifier, bulletImageIdentifiers) = (message.header, message.body, message.image, message.bulletImages)
    }
}

/// A product and locale, as `retention messages delete` names the defaults removed with a message.
struct RetentionDefaultSlotRecord: Encodable {
    var productId: String
    var locale: String
}

struct RetentionMessageListOutput: Encodable {
    var environment: String
    var messages: [RetentionMessageRecord]
}

/// A write Apple took: what it was for, in which environment.
struct RetentionWriteOutput: Encodable {
    var environment: String
    /// "upload-image", "delete-message", "set-default-message", …
    var action: String
    var imageIdentifier: String?
    var messageIdentifier: String?
    var productId: String?
    var locale: String?
    var realtimeURL: String?
    /// `delete-message` in the demo: the default messages that named it, removed with it.
    var removedDefaults: [RetentionDefaultSlotRecord]?
}

struct RetentionDefaultOutput: Encodable {
    var environment: String
    var productId: String
    var locale: String
    var messageIdentifier: String?
}

/// One product and locale `retention default list` asked, and Apple's answer.
struct RetentionDefaultRecord: Encodable {
    var productId: String
    var locale: String
    /// Nil: no default message (or the read failed: `error`).
    var messageIdentifier: String?
    var error: String?

    init(_ slot: DefaultMessageSlot, _ result: Result<String?, DisplayError>?) {
        (productId, locale) = (slot.productId, slot.locale)
        switch result {
        case .success(let id)?: messageIdentifier = id
        case .failure(let failure)?: error = failure.summary
        case nil: error = "not read"
        }
    }
}

struct RetentionDefaultListOutput: Encodable {
    var environment: String
    /// Where the products and locales asked came from.
    var productsFrom: String
    var localesFrom: String
    var productsLeftOut: Int
    var defaults: [RetentionDefaultRecord]
}

struct RetentionRealtimeURLOutput: Encodable {
    var environment: String
    var realtimeURL: String?
}

struct PerformanceTestStartOutput: Encodable {
    var requestId: String?
    /// The Sandbox realtime URL the test calls.
    var target: String?
    var config: PerformanceTestConfig?
}

struct PerformanceTestResultOutput: Encodable {
    var requestId: String
    var result: String?
    var target: String?
    var successRate: Int32?
    var numPending: Int32?
    var responseTimes: PerformanceTestResponseTimes?
    var failures: [String: Int32]?
    var config: PerformanceTestConfig?

    init(requestId: String, _ answer: PerformanceTestResultResponse) {
        self.requestId = requestId
        (result, target, successRate, numPending) = (answer.result?.rawValue, answer.target, answer.successRate, answer.numPending)
        (responseTimes, failures, config) = (answer.responseTimes, answer.failures, answer.config)
    }
}
