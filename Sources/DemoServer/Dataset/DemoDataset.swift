import AppStoreServerAPI
import Foundation

/// The demo's data in both environments, built the same way from the same seed.
struct DemoDataset: Sendable {
    var production: DemoEnvironmentData
    var sandbox: DemoEnvironmentData

    static let defaultSeed: UInt64 = 0x1A9D_E5C0

    static func build(anchor: Date, signer: JWSSigner, seed: UInt64 = defaultSeed) -> DemoDataset {
        var production = DatasetBuilder(environment: .production, anchor: anchor, signer: signer, seed: seed)
        production.buildProduction()
        var sandbox = DatasetBuilder(environment: .sandbox, anchor: anchor, signer: signer, seed: seed &+ 1)
        sandbox.buildSandbox()
        return DemoDataset(production: production.data, sandbox: sandbox.data)
    }

    subscript(environment: AppStoreEnvironment) -> DemoEnvironmentData {
        get { environment == .sandbox ? sandbox : production }
        set {
            if environment == .sandbox { sandbox = newValue } else { production = newValue }
        }
    }
}
