import AppStoreServerAPI
@testable import Console
import Crypto
import DemoServer
@testable import DeskCore
import Foundation

/// A profile for the demo server written as a user's would be: a key file (mode 600 unless said
/// otherwise) and the demo's root certificate in a folder of its own.
struct DoctorFixture {
    let folder: String
    var profile: Profile

    var keyPath: String { folder + "/SubscriptionKey_\(DemoServer.keyId).p8" }

    init(_ server: DemoServer, keyPEM: String? = nil, mode: Int = 0o600) throws {
        folder = NSTemporaryDirectory() + "iapdesk-doctor-test-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let keyPath = folder + "/SubscriptionKey_\(DemoServer.keyId).p8"
        _ = FileManager.default.createFile(
            atPath: keyPath, contents: Data((keyPEM ?? server.signingKey.pemRepresentation).utf8), attributes: [.posixPermissions: mode])
        let rootPath = folder + "/demo-root.der"
        try server.rootCertificateDER.write(to: URL(fileURLWithPath: rootPath))
        profile = Profile(name: "test")
        profile.issuerId = DemoServer.issuerId
        profile.keyId = DemoServer.keyId
        profile.keyFile = keyPath
        profile.bundleId = DemoServer.bundleId
        profile.appAppleId = DemoServer.appAppleId
        profile.environment = .production
        profile.baseURL = server.baseURL
        profile.rootCerts = [rootPath]
    }

    /// One transport for every fixture: each console harness makes a doctor, most never run it.
    static let transport = AsyncHTTPClientTransport()

    /// The doctor trying both of the demo's environments, with `now` as this machine's clock.
    func doctor(_ server: DemoServer, now: @escaping @Sendable () -> Date = { Date() }) -> Doctor {
        Doctor(
            profile: profile, config: nil, endpoints: [server.serverEnvironment(.production), server.serverEnvironment(.sandbox)],
            transport: Self.transport, now: now)
    }

    func remove() { try? FileManager.default.removeItem(atPath: folder) }
}
