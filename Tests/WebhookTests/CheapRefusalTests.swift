import AppStoreServerAPI
import DeskStore
import Foundation
import Testing
import WebhookReceiver

/// What a refused body costs: the checks that cost least come first.
@Suite struct CheapRefusalTests {
    @Test func anotherAppsNotificationIsRefusedForThatBeforeItsSignatureIsChecked() async throws {
        let bench = try await ReceiverBench.start()
        let jws = Notifications.tampered(try bench.notifications.payload(bundleId: "com.example.other"))
        // Checking everything, the signature fails first; the receiver never gets that far.
        let everything = await (try bench.demo.makeVerifier()).verifyNotification(jws)
        #expect(FailureName.reason(everything) == "invalid-signature")
        #expect(everything.transaction != nil)
        let cheapest = await (try bench.demo.makeVerifier()).verifyNotification(jws, cheapestFirst: true)
        #expect(FailureName.reason(cheapest) == "wrong-bundle-id")
        #expect(cheapest.transaction == nil)
        let answer = try await bench.post(Notifications.body(jws))
        #expect(answer.status == 400)
        #expect(try await bench.store.quarantined(QuarantineFilter()).map(\.reason) == ["wrong-bundle-id"])
        await bench.stop()
    }
}

/// The failure of a notification's own payload, named as the receiver names it.
enum FailureName {
    static func reason(_ decoded: DecodedNotification) -> String? {
        guard case .failed(let failure) = decoded.notification.status else { return nil }
        switch failure {
        case .invalidSignature: return "invalid-signature"
        case .wrongBundleId: return "wrong-bundle-id"
        default: return "\(failure)"
        }
    }
}
