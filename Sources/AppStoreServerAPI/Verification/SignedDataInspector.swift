import Foundation

/// Reads signed data without trusting it, for when no verifier can be configured.
public enum SignedDataInspector {
    /// The payload decoded as `T`, marked as not checked with `reason`.
    public static func decodeUnverified<T: Decodable & Sendable>(_ text: String, as type: T.Type, reason: String) -> VerifiedPayload<T> {
        do {
            let jws = try CompactJWS(text)
            let raw = try jws.payloadData()
            let header = try? jws.header()
            do {
                let payload = try AppStoreJSON.decode(T.self, from: raw)
                return VerifiedPayload(payload: payload, rawPayload: raw, header: header, status: .notChecked(reason), chainSubjects: [], signed: text)
            } catch {
                return VerifiedPayload(payload: nil, rawPayload: raw, header: header, status: .failed(.undecodablePayload(error)), chainSubjects: [], signed: text)
            }
        } catch {
            return VerifiedPayload(payload: nil, rawPayload: nil, header: nil, status: .failed(error), chainSubjects: [], signed: text)
        }
    }

    /// The payload's JSON as a tree, or nil when the text is not a JWS with a JSON payload.
    public static func payloadTree(_ text: String) -> JSONValue? {
        guard let jws = try? CompactJWS(text), let data = try? jws.payloadData() else { return nil }
        return try? JSONValue.parse(data)
    }
}
