import AppStoreServerAPI
import DeskCore
import Foundation
import Testing

/// A ledger line names what the write did, read from its method and path: an upload and a delete
/// of the same thing look different in `iapdesk audit` and the timeline.
@Suite struct WriteActionTests {
    func action(_ kind: WriteKind, _ endpoint: Endpoint<some Sendable>) -> String {
        AuditLedger.Entry(
            time: Date(), event: .intent, requestIdentifier: "r", write: kind.rawValue, method: endpoint.method, path: endpoint.path, body: nil,
            account: WriteAccount(profile: "p", environment: .production, baseURL: "demo", bundleId: "b", keyId: "k"), subject: nil,
            source: .commandLine, agent: "sam"
        ).action
    }

    @Test func retentionWritesNameTheirAction() {
        let image = UUID()
        #expect(action(.retention, Endpoints.uploadImage(imageIdentifier: image, png: Data(), imageSize: nil)) == "retention image upload")
        #expect(action(.retention, Endpoints.deleteImage(imageIdentifier: image)) == "retention image delete")
        #expect(action(.retention, Endpoints.deleteMessage(messageIdentifier: image)) == "retention message delete")
        #expect(action(.retention, Endpoints.deleteRealtimeURL()) == "retention realtime URL delete")
        #expect(action(.retention, Endpoints.configureRealtimeURL(request: RealtimeUrlRequest(realtimeURL: "https://example.com/r"))) == "retention realtime URL set")
        #expect(action(.retention, Endpoints.deleteDefaultMessage(productId: "p", locale: "en-US")) == "retention default message delete")
    }

    @Test func advancedCommerceWritesAreNamedAsTheCommands() {
        let info = AdvancedCommerceRequestInfo(requestReferenceId: UUID().uuidString)
        #expect(action(.advancedCommerce, Endpoints.cancelAdvancedCommerceSubscription(transactionId: "1", request: .init(requestInfo: info))) == "advanced-commerce cancel")
        #expect(action(.advancedCommerce, Endpoints.changeAdvancedCommerceSubscriptionPrice(transactionId: "1", request: .init(
            requestInfo: info, items: [.init(sku: "A", price: 1)]))) == "advanced-commerce change-price")
        #expect(action(.advancedCommerce, Endpoints.requestAdvancedCommerceRefund(transactionId: "1", request: .init(
            requestInfo: info, items: [], refundRiskingPreference: false))) == "advanced-commerce refund")
        // Other kinds keep their name.
        #expect(action(.extend, Endpoints.finishTransaction(transactionId: "1")) == "extend")
    }
}
