import AppStoreServerAPI
import Foundation

/// The shape of each credential, checked before anything is sent: `init` asks again with the
/// reason, `doctor` reports it. Each returns nil when the value is well formed, else why not.
public enum CredentialRules {
    public static func issuerIdProblem(_ text: String) -> String? {
        if text.isEmpty { return "the issuer ID is empty" }
        guard text.utf8.count == 36, UUID(uuidString: text) != nil else {
            return "an issuer ID is a UUID such as 57246542-96fe-1a63-e053-0824d011072a (App Store Connect > Users and Access > Integrations)"
        }
        return nil
    }

    public static func keyIdProblem(_ text: String) -> String? {
        let allowed = text.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
        guard text.unicodeScalars.count == 10, allowed else {
            return "a key ID is 10 capital letters and digits, such as 2X9R4HXF34 (it is also in the .p8 file's name)"
        }
        return nil
    }

    /// Reverse-DNS: at least two dot-separated parts of letters, digits, hyphens (and underscores, which Xcode allows).
    public static func bundleIdProblem(_ text: String) -> String? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        let wellFormed = parts.count >= 2 && text.utf8.count <= 155 && parts.allSatisfy { part in
            !part.isEmpty && part.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_")
            }
        }
        return wellFormed ? nil : "a bundle ID is reverse-DNS, such as com.example.app (letters, digits and hyphens between dots)"
    }

    public static func appAppleIdProblem(_ text: String) -> String? {
        guard let number = Int64(text), number > 0 else {
            return "the app's Apple ID is a positive number, such as 1234567890 (App Store Connect > the app > App Information)"
        }
        return nil
    }
}

/// What a `.p8` key file is like, read without the mode check so every problem can be named at
/// once. The key's content never leaves this type.
public struct KeyFileInspection: Sendable, Equatable {
    public let path: String
    public let exists: Bool
    /// Permission bits, when the file could be examined.
    public let mode: UInt32?
    /// Why the file cannot be read or parsed as the P-256 PKCS#8 key; nil when it can.
    public let problem: String?

    /// Readable by group or others: the console and every command refuse such a key.
    public var tooOpen: Bool { (mode ?? 0) & 0o077 != 0 }
    public var parses: Bool { exists && problem == nil }
    public var modeText: String { mode.map { String($0, radix: 8) } ?? "?" }

    public static func inspect(_ path: String) -> KeyFileInspection {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let missing = errno == ENOENT
            let reason = missing ? "does not exist" : "cannot be examined: \(String(cString: strerror(errno)))"
            return KeyFileInspection(path: path, exists: !missing, mode: nil, problem: "\(path) \(reason)")
        }
        let mode = UInt32(info.st_mode & 0o777)
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            return KeyFileInspection(path: path, exists: true, mode: mode, problem: "\(path) is not a regular file")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            return KeyFileInspection(path: path, exists: true, mode: mode, problem: "\(path) cannot be read: permission denied")
        }
        guard data.count < 64 * 1024, let text = String(data: data, encoding: .utf8) else {
            return KeyFileInspection(path: path, exists: true, mode: mode, problem: KeyLoadError.notPEM(path).description)
        }
        do {
            _ = try SigningKey(pem: text, source: path)
            return KeyFileInspection(path: path, exists: true, mode: mode, problem: nil)
        } catch {
            return KeyFileInspection(path: path, exists: true, mode: mode, problem: error.description)
        }
    }

    /// The key itself, for signing the doctor's probe even when the mode is too open (the probe
    /// then says whether Apple would take the key once its mode is fixed).
    func load() -> SigningKey? {
        guard parses, let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else { return nil }
        return try? SigningKey(pem: text, source: path)
    }
}
