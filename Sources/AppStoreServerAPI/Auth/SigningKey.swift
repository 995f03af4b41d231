import Crypto
import Foundation

/// The In-App Purchase private key (`.p8`, PKCS#8 PEM, P-256). Its bytes never leave this type:
/// descriptions and errors name the file, never the key.
public struct SigningKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public let privateKey: P256.Signing.PrivateKey

    public init(_ privateKey: P256.Signing.PrivateKey) {
        self.privateKey = privateKey
    }

    /// Parses PEM text; `source` names where it came from in errors.
    public init(pem: String, source: String = "the key") throws(KeyLoadError) {
        let trimmed = pem.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let label = Self.pemLabel(trimmed) else { throw .notPEM(source) }
        // Only PKCS#8 ("PRIVATE KEY") is what App Store Connect hands out; SEC1, RSA, public keys
        // and certificates are refused by name.
        guard label == "PRIVATE KEY" else { throw .notPKCS8(source) }
        if let key = try? P256.Signing.PrivateKey(pemRepresentation: trimmed) {
            self.privateKey = key
            return
        }
        if (try? P384.Signing.PrivateKey(pemRepresentation: trimmed)) != nil { throw .wrongCurve(source, "P-384") }
        if (try? P521.Signing.PrivateKey(pemRepresentation: trimmed)) != nil { throw .wrongCurve(source, "P-521") }
        if (try? Curve25519.Signing.PrivateKey(pemRepresentation: trimmed)) != nil { throw .wrongCurve(source, "Ed25519") }
        throw .malformed(source)
    }

    /// Loads a key file, refusing one that other users could read.
    public static func load(path: String) throws(KeyLoadError) -> SigningKey {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { throw .missing(path) }
            throw .unreadable(path, String(cString: strerror(errno)))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .unreadable(path, "not a regular file") }
        let mode = info.st_mode & 0o777
        if mode & 0o077 != 0 { throw .tooOpen(path, mode: UInt32(mode)) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .unreadable(path, "permission denied")
        }
        guard data.count < 64 * 1024, let text = String(data: data, encoding: .utf8) else { throw .notPEM(path) }
        return try SigningKey(pem: text, source: path)
    }

    /// The label of the first PEM block (`-----BEGIN <label>-----`), or nil when the text is not PEM.
    static func pemLabel(_ text: String) -> String? {
        let opening = "-----BEGIN "
        guard text.hasPrefix(opening), let close = text.range(of: "-----", range: text.index(text.startIndex, offsetBy: opening.count)..<text.endIndex) else {
            return nil
        }
        return String(text[text.index(text.startIndex, offsetBy: opening.count)..<close.lowerBound])
    }

    public var description: String { "P-256 signing key (hidden)" }
    public var debugDescription: String { description }
}

/// Why a `.p8` key could not be used. Messages name the file and the fix, never the key.
public enum KeyLoadError: Error, Sendable, Equatable, CustomStringConvertible {
    case missing(String)
    case unreadable(String, String)
    case tooOpen(String, mode: UInt32)
    case notPEM(String)
    case notPKCS8(String)
    case wrongCurve(String, String)
    case malformed(String)

    public var description: String {
        switch self {
        case .missing(let path):
            return "Key file \(path) does not exist. Download the In-App Purchase key (.p8) from App Store Connect and set key_file to its path."
        case .unreadable(let path, let reason):
            return "Key file \(path) cannot be read: \(reason)."
        case .tooOpen(let path, let mode):
            return "Key file \(path) is readable by other users (mode \(String(mode, radix: 8))). Run: chmod 600 \(path)"
        case .notPEM(let path):
            return "Key file \(path) is not a PEM file. Use the .p8 file downloaded from App Store Connect as it is."
        case .notPKCS8(let path):
            return "Key file \(path) is not a PKCS#8 private key, the .p8 format. Use the .p8 file downloaded from App Store Connect."
        case .wrongCurve(let path, let curve):
            return "Key file \(path) holds a \(curve) key; App Store Server API keys are EC P-256 (ES256)."
        case .malformed(let path):
            return "Key file \(path) could not be parsed as an EC P-256 private key; it may be truncated or edited."
        }
    }
}
