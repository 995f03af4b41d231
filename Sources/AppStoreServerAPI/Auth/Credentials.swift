/// Who is calling: the In-App Purchase key and the IDs App Store Connect shows beside it.
public struct Credentials: Sendable, CustomStringConvertible {
    /// Issuer ID (a UUID) from App Store Connect.
    public var issuerId: String
    /// Key ID of the In-App Purchase key, 10 characters.
    public var keyId: String
    public var bundleId: String
    public var signingKey: SigningKey

    public init(issuerId: String, keyId: String, bundleId: String, signingKey: SigningKey) {
        self.issuerId = issuerId
        self.keyId = keyId
        self.bundleId = bundleId
        self.signingKey = signingKey
    }

    public var description: String { "issuer \(issuerId), key \(keyId), bundle \(bundleId)" }
}
