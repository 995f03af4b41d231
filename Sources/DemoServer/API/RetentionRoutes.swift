import AppStoreServerAPI
import Foundation

/// The Retention Messaging API as the demo serves it, with Apple's rules and error codes: images,
/// messages, default messages, the realtime URL, and performance tests (run for real against the
/// Sandbox realtime URL by `PerformanceTestRun`).
struct RetentionRoutes: Sendable {
    let store: DemoStore
    let settings: DemoRetentionSettings

    // MARK: Images

    func uploadImage(_ id: String, _ request: DemoRequest, _ environment: AppStoreEnvironment) throws(DemoAPIError) -> DemoResponse {
        let key = try Self.identifier(id, "image")
        var size = ImageSize.fullSize
        if let raw = request.queryValue("imageSize") {
            size = ImageSize(raw)
            guard size.isKnown else { throw .badRequestImageSize }
        }
        if let violation = RetentionImageCheck.violations(request.body, as: size).first {
            throw DemoAPIError(violation.appleCode.rawValue, "Invalid request. \(violation)")
        }
        guard case .success(let header) = RetentionImageCheck.readHeader(request.body) else { throw .invalidImage }
        let now = store.clock()
        try store.write(environment) { data throws(DemoAPIError) in
            guard data.retention.images[key] == nil else { throw .imageAlreadyExists }
            guard data.retention.images.count < settings.maxImages else { throw .maximumNumberOfImagesReached }
            try keep(.imageUploaded(id: key, size: size, rejected: DemoRetention.rejects(imageHeader: header),
                                    reviewedAt: now.addingTimeInterval(settings.reviewDelay)), environment, now, &data)
        }
        return .empty
    }

    func deleteImage(_ id: String, _ environment: AppStoreEnvironment) throws(DemoAPIError) -> DemoResponse {
        let key = try Self.identifier(id, "image")
        let now = store.clock()
        try store.write(environment) { data throws(DemoAPIError) in
            guard data.retention.images[key] != nil else { throw .imageNotFound }
            let users = data.retention.messageOrder.filter { data.retention.messages[$0]?.imageIdentifiers.contains(key) ?? false }
            if !users.isEmpty { throw DemoAPIError(4_030_019, "Forbidden. The image is used by \(users.count == 1 ? "message" : "messages") \(users.joined(separator: ", ")).") }
            try keep(.imageDeleted(id: key), environment, now, &data)
        }
        return .empty
    }

    func imageList(_ environment: AppStoreEnvironment) throws(DemoAPIError) -> DemoResponse {
        let now = store.clock()
        let items = try store.read(environment) { data throws(DemoAPIError) in
            data.retention.imageOrder.compactMap { id -> GetImageListResponseItem? in
                guard let image = data.retention.images[id] else { return nil }
                return GetImageListResponseItem(
                    imageIdentifier: id, imageState: DemoRetention.state(rejected: image.rejected, reviewedAt: image.reviewedAt, now: now),
                    imageSize: image.size)
            }
        }
        return .json(GetImageListResponse(imageIdentifiers: items))
    }

    // MARK: Messages

    func uploadMessage(_ id: String, _ request: DemoRequest, _ environment: AppStoreEnvironment) throws(DemoAPIError) -> DemoResponse {
        let key = try Self.identifier(id, "message")
        try RouteValidation.checkFields(request.body, [
            "header": (.string, .generalBadRequest), "body": (.string, .generalBadRequest), "headerPosition": (.string, .generalBadRequest),
        ])
        let message = try RouteValidation.decodeBody(UploadMessageRequestBody.self, request.body)
        if let position = message.headerPosition, !position.isKnown {
            throw DemoAPIError(4_000_000, "Invalid request. The header position must be ABOVE_BODY or ABOVE_IMAGE.")
        }
        let identifiers = [message.image?.imageIdentifier] + (message.bulletPoints ?? []).map(\.imageIdentifier)
        for identifier in identifiers.compactMap({ $0 }) where !RouteValidation.isUUID(identifier) {
            throw DemoAPIError(4_000_000, "Invalid request. The image identifier \(identifier) is not a UUID.")
        }
        if let violation = message.violations.first { throw DemoAPIError(violation.code.rawValue, "Invalid request. \(violation)") }
        var kept = message
        kept.image?.imageIdentifier = message.image?.imageIdentifier.lowercased() ?? ""
        kept.bulletPoints = message.bulletPoints?.map { var point = $0; point.imageIdentifier = $0.imageIdentifier.lowercased(); return point }
        let now = store.clock()
        try store.write(environment) { data throws(DemoAPIError) in
            guard data.retention.messages[key] == nil else { throw .messageAlreadyExists }
            guard data.retention.messages.count < settings.maxMessages else { throw .maximumNumberOfMessagesReached }
            try Self.checkImages(of: kept, in: data.retention)
            try keep(.messageUploaded(id: key, body: kept, rejected: DemoRetention.rejects(message),
                                      reviewedAt: now.addingTimeInterval(settings.reviewDelay)), environment, now, &data)
        }
        return .empty
    }

    func deleteMessage(_ id: String, _ environment: AppStoreEnvironment) throws(DemoAPIError) -> DemoResponse {
        let key = try Self.identifier(id, "message")
        let now = store.clock()
        try store.write(environment) { data throws(DemoAPIError) in
            guard data.retention.messages[key] != nil else { throw .messageNotFound }
            try keep(.messageDeleted(id: key), environment, now, &data)
        }
        return .empty
    }

    func messageList(_ environment: AppStoreEnvironment) throws(DemoAPIError) -> DemoResponse {
        let now = store.clock()
        let items = try store.read(environment) { data throws(DemoAPIError) in
            data.retention.messageOrder.compactMap { id -> GetMessageListResponseItem? in
                guard let message = data.retention.messages[id] else { return nil }
                return GetMessageListResponseItem(
                    messageIdentifier: id,
                    messageState: DemoRetention.state(rejected: message.rejected, reviewedAt: message.reviewedAt, now: now))
            }
        }
        return .json(GetMessageListResponse(messageIdentifiers: items))
    }

    /// Each image a message shows exists, and is of the size its place takes: FULL_SIZE as the
    /// message's image, BULLET_POINT beside a bullet point (Apple's codes for an unknown image and
    /// a wrong image size).
    static func checkImages(of message: UploadMessageRequestBody, in retention: DemoRetention) throws(DemoAPIError) {
        for use in message.imageUses {
            guard let image = retention.images[use.imageIdentifier] else {
                throw DemoAPIError(4_040_014, "Image not found: \(use.place), \(use.imageIdentifier), was never uploaded (or was deleted).")
            }
            guard image.size == use.size else {
                throw DemoAPIError(
                    4_000_216, "Invalid request. The image's size is invalid: \(use.place), \(use.imageIdentifier), is \(image.size.rawValue), not \(use.size.rawValue).")
            }
        }
    }

    // MARK: Default messages

    func configureDefault(_ productId: String, _ given: String, _ request: DemoRequest, _ environment: AppStoreEnvironment) throws(DemoAPIError) -> DemoResponse {
        let locale = try Self.checkDefaultPath(productId, given)
        // Apple takes a default for the app's auto-renewable subscriptions only (InvalidProductIdError).
        guard DemoCatalog.product(productId)?.type == .autoRenewableSubscription else {
            throw DemoAPIError(4_000_023, "Invalid request. The product ID \(productId) is not an auto-renewable subscription of the app.")
        }
        try RouteValidation.checkFields(request.body, ["messageIdentifier": (.string, .generalBadRequest)])
        let body = try RouteValidation.decodeBody(DefaultConfigurationRequest.self, request.body)
        guard let raw = body.messageIdentifier, RouteValidation.isUUID(raw) else {
            throw DemoAPIError(4_000_000, "Invalid request. The message identifier must be a UUID.")
        }
        let messageId = raw.lowercased()
        let now = store.clock()
        try store.write(environment) { data throws(DemoAPIError) in
            guard let message = data.retention.messages[messageId] else { throw .messageNotFound }
            guard DemoRetention.state(rejected: message.rejected, reviewedAt: message.reviewedAt, now: now) == .approved else {
                throw .messageNotApproved
            }
            for imageId in message.imageIdentifiers {
                guard let image = data.retention.images[imageId],
                      DemoRetention.state(rejected: image.rejected, reviewedAt: image.reviewedAt, now: now) == .approved
                else { throw .imageNotApproved }
            }
            try keep(.defaultSet(productId: productId, locale: locale, messageId: messageId), environment, now, &data)
        }
        return .empty
    }

    func getDefault(_ productId: String, _ given: String, _ environment: AppStoreEnvironment) throws(DemoAPIError) -> DemoResponse {
        let locale = try Self.checkDefaultPath(productId, given)
        let messageId = try store.read(environment) { data throws(DemoAPIError) in
            data.retention.defaults[DemoRetention.defaultKey(productId, locale)]
        }
        guard let messageId else { throw .defaultMessageNotFound }
        return .json(DefaultConfigurationResponse(messageIdentifier: messageId))
    }

    func deleteDefault(_ productId: String, _ given: String, _ environment: AppStoreEnvironment) throws(DemoAPIError) -> DemoResponse {
        let locale = try Self.checkDefaultPath(productId, given)
        let now = store.clock()
        try store.write(environment) { data throws(DemoAPIError) in
            guard data.retention.defaults[DemoRetention.defaultKey(productId, locale)] != nil else { throw .defaultMessageNotFound }
            try keep(.defaultDeleted(productId: productId, locale: locale), environment, now, &data)
        }
        return .empty
    }

    // MARK: Realtime URL

    func configureRealtimeURL(_ request: DemoRequest, _ environment: AppStoreEnvironment) throws(DemoAPIError) -> DemoResponse {
        try RouteValidation.checkFields(request.body, ["realtimeURL": (.string, .badRequestRealtimeUrl)])
        let body = try RouteValidation.decodeBody(RealtimeUrlRequest.self, request.body, invalid: .badRequestRealtimeUrl)
        if let violation = body.violation { throw DemoAPIError(violation.code.rawValue, "Invalid request. \(violation)") }
        let now = store.clock()
        if environment == .production {
            // Apple sets a Production URL only after a Sandbox performance test passed.
            let passed = try store.read(.sandbox) { data throws(DemoAPIError) in data.retention.hasPassingTest }
            guard passed else { throw .forbiddenNoPassingTest }
        }
        try store.write(environment) { data throws(DemoAPIError) in
            try keep(.realtimeURLSet(body.realtimeURL), environment, now, &data)
        }
        return .empty
    }

    func getRealtimeURL(_ environment: AppStoreEnvironment) throws(DemoAPIError) -> DemoResponse {
        let url = try store.read(environment) { data throws(DemoAPIError) in data.retention.realtimeURL }
        guard let url else { throw .realtimeUrlNotFound }
        return .json(RealtimeUrlResponse(realtimeURL: url))
    }

    func deleteRealtimeURL(_ environment: AppStoreEnvironment) throws(DemoAPIError) -> DemoResponse {
        let now = store.clock()
        try store.write(environment) { data throws(DemoAPIError) in
            guard data.retention.realtimeURL != nil else { throw .realtimeUrlNotFound }
            try keep(.realtimeURLDeleted, environment, now, &data)
        }
        return .empty
    }

    // MARK: Performance tests

    func startPerformanceTest(_ request: DemoRequest, _ environment: AppStoreEnvironment) throws(DemoAPIError) -> DemoResponse {
        guard environment == .sandbox else {
            throw DemoAPIError(4_000_211, "Invalid request. Performance tests run in the sandbox environment only.")
        }
        try RouteValidation.checkFields(request.body, ["originalTransactionId": (.string, .invalidPerformanceTestRequest)])
        let body = try RouteValidation.decodeBody(PerformanceTestRequest.self, request.body, invalid: .invalidPerformanceTestRequest)
        let id = body.originalTransactionId
        let now = store.clock()
        let requestId = UUID().uuidString.lowercased()
        let config = settings.performanceTest
        let started = try store.write(environment) { data throws(DemoAPIError) -> (target: String, productId: String) in
            let transaction = try RouteValidation.transaction(id, in: data)
            if transaction.payload.inAppOwnershipType == .familyShared { throw .familyTransactionNotSupported }
            guard transaction.payload.originalTransactionId == id else { throw .transactionIdNotOriginal }
            // Apple tests with an active auto-renewable subscription only.
            guard transaction.payload.type == .autoRenewableSubscription else {
                throw DemoAPIError(4_000_211, "Invalid request. The transaction is not an auto-renewable subscription.")
            }
            guard let target = data.retention.realtimeURL else {
                throw DemoAPIError(4_000_211, "Invalid request. Configure the sandbox realtime URL before testing it.")
            }
            if data.retention.running(at: now) != nil { throw .existingPerformanceTestRun }
            try keep(.performanceTestStarted(requestId: requestId, target: target, config: config), environment, now, &data)
            return (target, transaction.payload.productId ?? "")
        }
        let run = PerformanceTestRun(
            store: store, requestId: requestId, target: started.target, config: config, originalTransactionId: id,
            productId: started.productId,
            transport: PerformanceTestRun.isOwnEndpoint(started.target)
                ? OwnRealtimeEndpoint(routes: self) : settings.realtimeTransport ?? AsyncHTTPClientTransport())
        store.track { await run.run() }
        return .json(PerformanceTestResponse(config: config, requestId: requestId))
    }

    func performanceTestResult(_ requestId: String, _ environment: AppStoreEnvironment) throws(DemoAPIError) -> DemoResponse {
        guard RouteValidation.isUUID(requestId) else { throw .invalidRequestId }
        let now = store.clock()
        let test = try store.read(environment) { data throws(DemoAPIError) in data.retention.performanceTests[requestId.lowercased()] }
        guard let test else { throw .performanceTestRunNotFound }
        if let result = test.result { return .json(result) }
        var answer = PerformanceTestResultResponse()
        answer.config = test.config
        answer.target = test.target
        answer.numPending = Int32(clamping: test.config.totalRequests ?? 0)
        answer.successRate = 0
        answer.responseTimes = PerformanceTestResponseTimes()
        // A run whose process ended before it did never finishes: it failed.
        answer.result = now < test.started.addingTimeInterval(Double(test.config.totalDuration ?? 0) / 1000 + 60) ? .pending : .fail
        return .json(answer)
    }

    // MARK: Shared

    private func keep(_ change: DemoRetentionChange, _ environment: AppStoreEnvironment, _ now: Date, _ data: inout DemoEnvironmentData) throws(DemoAPIError) {
        var entry = DemoJournalEntry(.retention, environment, at: now)
        entry.retention = change
        try store.keep(entry)
        data.retention.apply(change, at: now)
    }

    /// A path identifier: a UUID, kept lowercased.
    static func identifier(_ text: String, _ what: String) throws(DemoAPIError) -> String {
        guard RouteValidation.isUUID(text) else { throw DemoAPIError(4_000_000, "Invalid request. The \(what) identifier must be a UUID.") }
        return text.lowercased()
    }

    /// The path's locale, normalised (`EN-us` and `en-US` are one locale at Apple).
    static func checkDefaultPath(_ productId: String, _ locale: String) throws(DemoAPIError) -> String {
        guard RouteValidation.isProductId(productId) else { throw .invalidProductId }
        guard RetentionLocale.isValid(locale) else { throw .invalidLocale }
        return RetentionLocale.normalized(locale)
    }
}

/// Apple's Retention Messaging errors, as the demo answers them.
extension DemoAPIError {
    static let invalidImage = DemoAPIError(4_000_161, "Invalid request. The image is invalid.")
    static let invalidLocale = DemoAPIError(4_000_164, "Invalid request. The locale is invalid.")
    static let invalidPerformanceTestRequest = DemoAPIError(4_000_211, "Invalid request. The performance test request is invalid.")
    static let invalidRequestId = DemoAPIError(4_000_212, "Invalid request. The request ID is invalid.")
    static let existingPerformanceTestRun = DemoAPIError(4_000_213, "Invalid request. A performance test is already running.")
    static let badRequestRealtimeUrl = DemoAPIError(4_000_215, "Invalid request. The realtime URL is invalid.")
    static let badRequestImageSize = DemoAPIError(4_000_216, "Invalid request. The image size must be FULL_SIZE or BULLET_POINT.")
    static let maximumNumberOfImagesReached = DemoAPIError(4_030_014, "Forbidden. The maximum number of images is reached.")
    static let maximumNumberOfMessagesReached = DemoAPIError(4_030_016, "Forbidden. The maximum number of messages is reached.")
    static let messageNotApproved = DemoAPIError(4_030_017, "Forbidden. The message is not approved.")
    static let imageNotApproved = DemoAPIError(4_030_018, "Forbidden. An image of the message is not approved.")
    static let forbiddenNoPassingTest = DemoAPIError(4_030_026, "Forbidden. A passing performance test is required before setting a production URL.")
    static let imageNotFound = DemoAPIError(4_040_014, "Image not found.")
    static let messageNotFound = DemoAPIError(4_040_015, "Message not found.")
    static let performanceTestRunNotFound = DemoAPIError(4_040_018, "Performance test run not found.")
    static let defaultMessageNotFound = DemoAPIError(4_040_020, "Default message not found.")
    static let realtimeUrlNotFound = DemoAPIError(4_040_021, "Realtime URL not found.")
    static let imageAlreadyExists = DemoAPIError(4_090_000, "Image already exists.")
    static let messageAlreadyExists = DemoAPIError(4_090_001, "Message already exists.")
}
