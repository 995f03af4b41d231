import AppStoreServerAPI
import Crypto
import Foundation
import FuzzSupport

/// The .p8 loader takes only PKCS#8 P-256 keys, and a key it takes is a working key: it signs, its
/// public key verifies, and its PEM reads back as the same key. Nothing it says shows the key.
@main enum FuzzSigningKey {
    static let source = "fuzz-key-file"

    static func main() {
        Fuzz.run { data in
            let pem = String(decoding: data, as: UTF8.self)
            do throws(KeyLoadError) {
                let key = try SigningKey(pem: pem, source: source)
                checkAccepted(key, pem: pem)
            } catch {
                invariant(!error.description.isEmpty && error.description.contains(source), "error does not name the file: \(error)")
                checkHidden(error.description, pem: pem)
            }
        }
    }

    /// The PKCS#8 PEM header, spelled in parts so this source is never mistaken for a key file.
    static let pkcs8Header = "-----BEGIN " + "PRIVATE KEY-----"

    static func checkAccepted(_ key: SigningKey, pem: String) {
        invariant(pem.contains(pkcs8Header), "accepted a key that is not a PKCS#8 PEM")
        let again = try? SigningKey(pem: key.privateKey.pemRepresentation, source: source)
        invariant(again?.privateKey.rawRepresentation == key.privateKey.rawRepresentation, "the key's own PEM reads back differently")
        let message = Data("fuzz".utf8)
        let signature = try? key.privateKey.signature(for: message)
        invariant(signature.map { key.privateKey.publicKey.isValidSignature($0, for: message) } == true, "an accepted key does not sign")
        checkHidden(key.description + String(reflecting: key), pem: pem)
    }

    /// No base64 line of the input (key material) appears in what is shown.
    static func checkHidden(_ shown: String, pem: String) {
        let base64 = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")
        for line in pem.split(whereSeparator: \.isNewline) where line.count >= 16 && line.allSatisfy(base64.contains) {
            invariant(!shown.contains(line), "key material shown: \(shown)")
        }
    }
}
