import Foundation

// The Retention Messaging API: one typed method per endpoint, each a thin wrapper over `Endpoints`.
extension AppStoreServerClient {
    /// Uploads a PNG as it is (checking it against Apple's rules is the caller's: see `RetentionImageCheck`).
    public func uploadImage(imageIdentifier: UUID, png: Data, imageSize: ImageSize? = nil) async throws(APIError) {
        guard !png.isEmpty else { throw .invalidRequest("The image is empty.") }
        _ = try await send(Endpoints.uploadImage(imageIdentifier: imageIdentifier, png: png, imageSize: imageSize))
    }

    public func deleteImage(imageIdentifier: UUID) async throws(APIError) {
        _ = try await send(Endpoints.deleteImage(imageIdentifier: imageIdentifier))
    }

    public func getImageList() async throws(APIError) -> GetImageListResponse {
        try await send(Endpoints.getImageList())
    }

    public func uploadMessage(messageIdentifier: UUID, request: UploadMessageRequestBody) async throws(APIError) {
        _ = try await send(Endpoints.uploadMessage(messageIdentifier: messageIdentifier, request: request))
    }

    public func deleteMessage(messageIdentifier: UUID) async throws(APIError) {
        _ = try await send(Endpoints.deleteMessage(messageIdentifier: messageIdentifier))
    }

    public func getMessageList() async throws(APIError) -> GetMessageListResponse {
        try await send(Endpoints.getMessageList())
    }

    public func configureDefaultMessage(productId: String, locale: String, request: DefaultConfigurationRequest) async throws(APIError) {
        _ = try await send(Endpoints.configureDefaultMessage(
            productId: try requireID(productId, "product ID"), locale: try requireID(locale, "locale"), request: request))
    }

    public func deleteDefaultMessage(productId: String, locale: String) async throws(APIError) {
        _ = try await send(Endpoints.deleteDefaultMessage(
            productId: try requireID(productId, "product ID"), locale: try requireID(locale, "locale")))
    }

    public func getDefaultMessage(productId: String, locale: String) async throws(APIError) -> DefaultConfigurationResponse {
        try await send(Endpoints.getDefaultMessage(
            productId: try requireID(productId, "product ID"), locale: try requireID(locale, "locale")))
    }

    public func configureRealtimeURL(request: RealtimeUrlRequest) async throws(APIError) {
        _ = try await send(Endpoints.configureRealtimeURL(request: request))
    }

    public func deleteRealtimeURL() async throws(APIError) {
        _ = try await send(Endpoints.deleteRealtimeURL())
    }

    public func getRealtimeURL() async throws(APIError) -> RealtimeUrlResponse {
        try await send(Endpoints.getRealtimeURL())
    }

    /// Apple runs performance tests in Sandbox only (its Production URL for this endpoint is the
    /// Sandbox host): a Production client sends it to its Sandbox fallback.
    public func initiatePerformanceTest(request: PerformanceTestRequest) async throws(APIError) -> PerformanceTestResponse {
        try await sandboxClient(for: "Initiate Performance Test").send(Endpoints.initiatePerformanceTest(request: request))
    }

    public func getPerformanceTestResults(requestId: String) async throws(APIError) -> PerformanceTestResultResponse {
        try await sandboxClient(for: "Get Performance Test Results").send(Endpoints.getPerformanceTestResults(
            requestId: try requireID(requestId, "request ID")))
    }

    private func sandboxClient(for endpoint: String) throws(APIError) -> AppStoreServerClient {
        guard let sandbox = client(for: .sandbox) else {
            throw .invalidRequest("\(endpoint) runs in Sandbox only, and this client reaches \(environment.environment.label) alone.")
        }
        return sandbox
    }
}
