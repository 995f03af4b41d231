@testable import AppStoreServerAPI
import Foundation

extension SigningCertificateAuthority {
    /// A chain valid 2020-09-13 to 2033-05-18 unless told otherwise.
    static func test(
        leafValidUntil: Date? = nil, markers: Markers = Markers()
    ) throws -> SigningCertificateAuthority {
        try SigningCertificateAuthority(
            validFrom: Date(timeIntervalSince1970: 1_600_000_000), validUntil: Date(timeIntervalSince1970: 2_000_000_000),
            leafValidUntil: leafValidUntil, markers: markers, name: "iapdesk Test")
    }

    func sign(_ payload: String) -> String { signer.sign(json: Data(payload.utf8)) }
}
