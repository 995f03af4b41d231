@testable import AppStoreServerAPI
import Foundation
import FuzzSupport

/// Every model decoded from the same bytes. What decodes encodes, decodes back to an equal value,
/// and encodes to the same bytes again; what does not decode fails with a readable error. The
/// verifier's byte reader reads signed payloads as JSONDecoder does, or leaves them to it.
@main enum FuzzModels {
    static let checks: [@Sendable (Data) -> Void] = [
        // Response bodies.
        roundTrip(TransactionInfoResponse.self), roundTrip(HistoryResponse.self), roundTrip(StatusResponse.self),
        roundTrip(RefundHistoryResponse.self), roundTrip(OrderLookupResponse.self), roundTrip(ExtendRenewalDateResponse.self),
        roundTrip(MassExtendRenewalDateResponse.self), roundTrip(MassExtendRenewalDateStatusResponse.self),
        roundTrip(NotificationHistoryResponse.self), roundTrip(SendTestNotificationResponse.self),
        roundTrip(CheckTestNotificationResponse.self), roundTrip(AppTransactionInfoResponse.self), roundTrip(ErrorPayload.self),
        // Signed payloads and the JWS header.
        roundTrip(TransactionPayload.self), roundTrip(RenewalInfoPayload.self), roundTrip(AppTransactionPayload.self),
        roundTrip(NotificationPayload.self), roundTrip(JWSHeader.self),
        // Request bodies (the demo server decodes them).
        roundTrip(NotificationHistoryRequest.self), roundTrip(ExtendRenewalDateRequest.self),
        roundTrip(MassExtendRenewalDateRequest.self), roundTrip(ConsumptionRequest.self), roundTrip(ConsumptionRequestV1.self),
        roundTrip(UpdateAppAccountTokenRequest.self),
        // The verifier's fast reader of signed payloads.
        fastAgrees(TransactionPayload.self), fastAgrees(RenewalInfoPayload.self), fastAgrees(AppTransactionPayload.self),
        fastAgrees(NotificationPayload.self),
    ]

    static func main() {
        Fuzz.run { buffer in
            let data = Data(buffer)
            for check in checks { check(data) }
        }
    }

    static func fastAgrees<Model: FastJSONDecodable & Decodable & Equatable>(_ type: Model.Type) -> @Sendable (Data) -> Void {
        { data in
            guard let fast = Model.fastDecode(data) else { return }
            invariant((try? AppStoreJSON.decode(type, from: data)) == fast, "the fast reader read \(Model.self) unlike JSONDecoder")
        }
    }

    static func roundTrip<Model: Codable & Equatable>(_ type: Model.Type) -> @Sendable (Data) -> Void {
        { data in
            let name = String(describing: type)
            let value: Model
            do throws(JSONDecodeFailure) {
                value = try AppStoreJSON.decode(type, from: data)
            } catch {
                invariant(!error.description.isEmpty && error.typeName == name, "unreadable decoding error for \(name)")
                return
            }
            let encoder = AppStoreJSON.encoder()
            guard let encoded = try? encoder.encode(value) else {
                invariant(false, "\(name) decoded but does not encode")
                return
            }
            let text = String(decoding: encoded, as: UTF8.self)
            guard let again = try? AppStoreJSON.decode(type, from: encoded) else {
                invariant(false, "\(name) encoded as \(text), which does not decode")
                return
            }
            invariant(again == value, "\(name) changed on the way through \(text)")
            invariant((try? encoder.encode(again)) == encoded, "\(name) encodes differently the second time: \(text)")
        }
    }
}
