import Foundation

/// The Retention Messaging API's endpoints: the same host, token, retries and rate limiter as the
/// App Store Server API. Uploads are not idempotent (a second one answers 409), nor are deletes
/// (a second one answers 404) or starting a performance test; configuring is, and reads are.
extension Endpoints {
    public static func uploadImage(imageIdentifier: UUID, png: Data, imageSize: ImageSize?) -> Endpoint<NoContent> {
        .empty("Upload Image", "PUT", "/inApps/v1/messaging/image/\(imageIdentifier.lowercased)",
               query: imageSize.map { [(name: "imageSize", value: $0.rawValue)] } ?? [],
               body: png, contentType: "image/png", idempotent: false)
    }

    public static func deleteImage(imageIdentifier: UUID) -> Endpoint<NoContent> {
        .empty("Delete Image", "DELETE", "/inApps/v1/messaging/image/\(imageIdentifier.lowercased)", idempotent: false)
    }

    public static func getImageList() -> Endpoint<GetImageListResponse> {
        .json("Get Image List", "GET", "/inApps/v1/messaging/image/list", idempotent: true)
    }

    public static func uploadMessage(messageIdentifier: UUID, request: UploadMessageRequestBody) -> Endpoint<NoContent> {
        .empty("Upload Message", "PUT", "/inApps/v1/messaging/message/\(messageIdentifier.lowercased)",
               body: encode(request), idempotent: false)
    }

    public static func deleteMessage(messageIdentifier: UUID) -> Endpoint<NoContent> {
        .empty("Delete Message", "DELETE", "/inApps/v1/messaging/message/\(messageIdentifier.lowercased)", idempotent: false)
    }

    public static func getMessageList() -> Endpoint<GetMessageListResponse> {
        .json("Get Message List", "GET", "/inApps/v1/messaging/message/list", idempotent: true)
    }

    public static func configureDefaultMessage(productId: String, locale: String, request: DefaultConfigurationRequest) -> Endpoint<NoContent> {
        .empty("Configure Default Message", "PUT", defaultMessagePath(productId, locale), body: encode(request), idempotent: true)
    }

    public static func deleteDefaultMessage(productId: String, locale: String) -> Endpoint<NoContent> {
        .empty("Delete Default Message", "DELETE", defaultMessagePath(productId, locale), idempotent: false)
    }

    public static func getDefaultMessage(productId: String, locale: String) -> Endpoint<DefaultConfigurationResponse> {
        .json("Get Default Message", "GET", defaultMessagePath(productId, locale), idempotent: true)
    }

    public static func configureRealtimeURL(request: RealtimeUrlRequest) -> Endpoint<NoContent> {
        .empty("Configure Realtime URL", "PUT", "/inApps/v1/messaging/realtime/url", body: encode(request), idempotent: true)
    }

    public static func deleteRealtimeURL() -> Endpoint<NoContent> {
        .empty("Delete Realtime URL", "DELETE", "/inApps/v1/messaging/realtime/url", idempotent: false)
    }

    public static func getRealtimeURL() -> Endpoint<RealtimeUrlResponse> {
        .json("Get Realtime URL", "GET", "/inApps/v1/messaging/realtime/url", idempotent: true)
    }

    public static func initiatePerformanceTest(request: PerformanceTestRequest) -> Endpoint<PerformanceTestResponse> {
        .json("Initiate Performance Test", "POST", "/inApps/v1/messaging/performanceTest", body: encode(request), idempotent: false)
    }

    public static func getPerformanceTestResults(requestId: String) -> Endpoint<PerformanceTestResultResponse> {
        .json("Get Performance Test Results", "GET", "/inApps/v1/messaging/performanceTest/result/\(pathSegment(requestId))",
              idempotent: true)
    }

    private static func defaultMessagePath(_ productId: String, _ locale: String) -> String {
        "/inApps/v1/messaging/default/\(pathSegment(productId))/\(pathSegment(locale))"
    }
}
