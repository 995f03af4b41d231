import AppStoreServerAPI
import Foundation
import FuzzSupport

/// The input is a payload: it is wrapped into a JWS and read back through the inspector.
/// - The tree the inspector shows is the tree of the payload, and survives being rendered and re-read.
/// - Every document Foundation reads as JSON, the tree reads too, with the same values.
/// - Decoding without a verifier never reports data as verified, and agrees with the typed decoder.
@main enum FuzzSignedDataInspector {
    static let header = Base64URL.encode(Data(#"{"alg":"ES256"}"#.utf8))

    static func main() {
        Fuzz.run { buffer in
            let payload = Data(buffer)
            let jws = "\(header).\(Base64URL.encode(payload)).c2lnbmF0dXJl"
            checkTree(jws: jws, payload: payload)
            checkUnverified(TransactionPayload.self, jws: jws, payload: payload)
            checkUnverified(RenewalInfoPayload.self, jws: jws, payload: payload)
            checkUnverified(AppTransactionPayload.self, jws: jws, payload: payload)
            checkUnverified(NotificationPayload.self, jws: jws, payload: payload)
        }
    }

    static func checkTree(jws: String, payload: Data) {
        let direct = try? JSONValue.parse(payload)
        invariant(SignedDataInspector.payloadTree(jws) == direct, "the inspector's tree differs from the payload's")
        if let tree = direct {
            for indent in [nil, "  "] {
                let rendered = tree.rendered(indent: indent)
                invariant((try? JSONValue.parse(Data(rendered.utf8))) == tree, "rendered tree reads back differently: \(rendered)")
            }
        }
        // Foundation reads more than JSON (a trailing comma, text after a NUL), so acceptance is compared
        // on the JSON Foundation writes; values are compared wherever both read the payload.
        guard let object = try? JSONSerialization.jsonObject(with: payload, options: .fragmentsAllowed), depth(object) < 250 else {
            return
        }
        if let tree = direct {
            invariant(same(tree, object), "the tree differs from Foundation's reading: \(tree.rendered())")
        }
        guard let written = try? JSONSerialization.data(withJSONObject: object, options: .fragmentsAllowed) else { return }
        guard let tree = try? JSONValue.parse(written) else {
            return invariant(false, "the tree parser refuses JSON written by Foundation: \(String(decoding: written, as: UTF8.self))")
        }
        invariant(same(tree, object), "the tree differs from Foundation's for \(String(decoding: written, as: UTF8.self))")
    }

    static func checkUnverified<T: Decodable & Sendable & Equatable>(_ type: T.Type, jws: String, payload: Data) {
        let result = SignedDataInspector.decodeUnverified(jws, as: type, reason: "fuzz")
        invariant(!result.status.isVerified && result.verifiedPayload == nil, "unverified data reported as verified")
        guard !payload.isEmpty else {
            // An empty payload leaves an empty middle part: not a JWS.
            guard case .failed(.malformedJWS) = result.status else { return invariant(false, "empty payload: \(result.status)") }
            return
        }
        invariant(result.rawPayload == payload, "raw payload differs")
        switch (try? AppStoreJSON.decode(type, from: payload), result.status) {
        case (let decoded?, .notChecked):
            invariant(result.payload == decoded, "payload differs from the typed decoder's")
        case (nil, .failed(.undecodablePayload)):
            invariant(result.payload == nil, "a payload for an undecodable document")
        case (let decoded, let status):
            invariant(false, "typed decoder \(decoded == nil ? "fails" : "succeeds"), status \(status)")
        }
    }

    static func depth(_ object: Any) -> Int {
        if let array = object as? [Any] { return 1 + (array.map(depth).max() ?? 0) }
        if let dictionary = object as? [String: Any] { return 1 + (dictionary.values.map(depth).max() ?? 0) }
        return 0
    }

    /// Foundation keeps the last of repeated keys; the tree keeps them all in order.
    static func same(_ tree: JSONValue, _ object: Any) -> Bool {
        switch tree {
        case .null:
            return object is NSNull
        case .bool(let value):
            return (object as? NSNumber)?.boolValue == value
        case .number(let text):
            guard let number = object as? NSNumber, let value = Double(text) else { return false }
            guard value.isFinite else { return true }
            let other = number.doubleValue
            return value == other || abs(value - other) <= 1e-9 * max(abs(value), abs(other))
        case .string(let value):
            return (object as? String) == value
        case .array(let items):
            guard let array = object as? [Any], array.count == items.count else { return false }
            return zip(items, array).allSatisfy { same($0, $1) }
        case .object(let members):
            guard let dictionary = object as? [String: Any] else { return false }
            var last: [String: JSONValue] = [:]
            for member in members { last[member.key] = member.value }
            guard Set(last.keys) == Set(dictionary.keys) else { return false }
            return last.allSatisfy { key, value in same(value, dictionary[key]!) }
        }
    }
}
