import Crypto
import Foundation
import Synchronization

/// The most notifications a receiver could verify on this machine: swift-crypto's raw P-256
/// verify of a precomputed digest, on every core at once, divided by the signatures each
/// notification carries (the notification's and its nested transaction's; the certificate chain
/// is checked once and remembered).
enum SignatureLimit {
    static let signaturesPerNotification = 2

    /// Raw verifies per second with one thread per core for `seconds`.
    static func rawVerifiesPerSecond(seconds: Double = 2) throws -> (rate: Double, cores: Int) {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let (publicKey, samples) = try signedSamples()
        let total = Mutex(0)
        let group = DispatchGroup()
        let end = Date().addingTimeInterval(seconds)
        for _ in 0..<cores {
            group.enter()
            Thread {
                var checked = 0
                while Date() < end {
                    for (digest, signature) in samples where publicKey.isValidSignature(signature, for: digest) { checked += 1 }
                }
                total.withLock { $0 += checked }
                group.leave()
            }.start()
        }
        group.wait()
        return (Double(total.withLock { $0 }) / seconds, cores)
    }

    /// CPU seconds of one raw verify, timed by the CPU clock of the thread that makes them: other
    /// work on the machine makes the wall time longer, not this.
    static func rawVerifyCPUSeconds(verifies: Int = 6_400) throws -> Double {
        let (publicKey, samples) = try signedSamples()
        var checked = 0
        let before = SenderLanes.threadCPUSeconds()
        while checked < verifies {
            for (digest, signature) in samples where publicKey.isValidSignature(signature, for: digest) { checked += 1 }
        }
        return (SenderLanes.threadCPUSeconds() - before) / Double(checked)
    }

    private static func signedSamples() throws -> (P256.Signing.PublicKey, [(SHA256Digest, P256.Signing.ECDSASignature)]) {
        let key = P256.Signing.PrivateKey()
        let samples = try (0..<64).map { index -> (SHA256Digest, P256.Signing.ECDSASignature) in
            let digest = SHA256.hash(data: Data("payload \(index)".utf8))
            return (digest, try key.signature(for: digest))
        }
        return (key.publicKey, samples)
    }
}
