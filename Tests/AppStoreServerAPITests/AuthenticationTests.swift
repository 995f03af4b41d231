@testable import AppStoreServerAPI
import Crypto
import Foundation
import Testing

@Suite struct SigningKeyTests {
    let directory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-keys-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    func write(_ text: String, mode: Int = 0o600) -> String {
        let path = directory.appendingPathComponent("\(UUID().uuidString).p8").path
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: mode])
        return path
    }

    @Test func loadsAPrivateP256Key() throws {
        let key = P256.Signing.PrivateKey()
        let loaded = try SigningKey.load(path: write(key.pemRepresentation))
        #expect(loaded.privateKey.publicKey.rawRepresentation == key.publicKey.rawRepresentation)
    }

    @Test func refusesAKeyOthersCanRead() throws {
        let path = write(P256.Signing.PrivateKey().pemRepresentation, mode: 0o644)
        #expect(throws: KeyLoadError.tooOpen(path, mode: 0o644)) { try SigningKey.load(path: path) }
        #expect(KeyLoadError.tooOpen(path, mode: 0o644).description.contains("chmod 600 \(path)"))
    }

    @Test func clearErrorsForBadKeyFiles() throws {
        let missing = directory.appendingPathComponent("nope.p8").path
        #expect(throws: KeyLoadError.missing(missing)) { try SigningKey.load(path: missing) }

        let notPEM = write("hello")
        #expect(throws: KeyLoadError.notPEM(notPEM)) { try SigningKey.load(path: notPEM) }

        let sec1 = write(P256.Signing.PrivateKey().derRepresentation.base64EncodedString()
            .wrapped(in: "EC PRIVATE KEY"))
        #expect(throws: KeyLoadError.notPKCS8(sec1)) { try SigningKey.load(path: sec1) }

        let p384 = write(P384.Signing.PrivateKey().pemRepresentation)
        #expect(throws: KeyLoadError.wrongCurve(p384, "P-384")) { try SigningKey.load(path: p384) }

        let truncated = write(String(P256.Signing.PrivateKey().pemRepresentation.prefix(80)) + "\n-----END PRIVATE KEY-----")
        #expect(throws: KeyLoadError.malformed(truncated)) { try SigningKey.load(path: truncated) }

        #expect(throws: KeyLoadError.unreadable(directory.path, "not a regular file")) { try SigningKey.load(path: directory.path) }
    }

    @Test func theKeyNeverShowsInText() throws {
        let key = P256.Signing.PrivateKey()
        let pem = key.pemRepresentation
        let secretLine = pem.split(separator: "\n")[1]
        let signingKey = SigningKey(key)
        let credentials = Credentials(issuerId: "i", keyId: "k", bundleId: "b", signingKey: signingKey)
        for text in ["\(signingKey)", String(reflecting: signingKey), "\(credentials)", String(reflecting: credentials)] {
            #expect(!text.contains(secretLine))
            #expect(!text.contains(key.rawRepresentation.base64EncodedString()))
        }
        // Errors about a bad key name the file, never its content.
        let path = write(String(pem.prefix(90)) + "\n-----END PRIVATE KEY-----")
        do {
            _ = try SigningKey.load(path: path)
            Issue.record("a truncated key must not load")
        } catch {
            #expect(!error.description.contains(String(secretLine.prefix(20))))
        }
    }
}

@Suite struct RequestTokenTests {
    func decode(_ token: String) throws -> (header: JSONValue, claims: JSONValue) {
        let parts = token.split(separator: ".")
        return (try JSONValue.parse(Base64URL.decode(parts[0])!), try JSONValue.parse(Base64URL.decode(parts[1])!))
    }

    @Test func claimsAndHeaderAreApples() async throws {
        let signer = try RequestTokenSigner(credentials: TestCredentials.credentials, lifetime: 600)
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let (header, claims) = try decode(try await signer.token(now: now))
        #expect(header["alg"] == .string("ES256"))
        #expect(header["kid"] == .string("2X9R4HXF34"))
        #expect(header["typ"] == .string("JWT"))
        #expect(claims["iss"] == .string("57246542-96fe-1a63-e053-0824d011072a"))
        #expect(claims["iat"] == .number("1700000000"))
        #expect(claims["exp"] == .number("1700000600"))
        #expect(claims["aud"] == .string("appstoreconnect-v1"))
        #expect(claims["bid"] == .string("com.example"))
    }

    @Test func tokenIsReusedThenResignedBeforeExpiry() async throws {
        let signer = try RequestTokenSigner(credentials: TestCredentials.credentials, lifetime: 300, renewalMargin: 60)
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let first = try await signer.token(now: start)
        #expect(try await signer.token(now: start.addingTimeInterval(200)) == first)
        let renewed = try await signer.token(now: start.addingTimeInterval(241))
        #expect(renewed != first)
        #expect(try decode(renewed).claims["iat"] == .number("1700000241"))
    }

    @Test func lifetimeOverAnHourIsRefused() {
        #expect(throws: APIError.self) { try RequestTokenSigner(credentials: TestCredentials.credentials, lifetime: 3601) }
    }
}

private extension String {
    func wrapped(in label: String) -> String {
        "-----BEGIN \(label)-----\n\(self)\n-----END \(label)-----\n"
    }
}
