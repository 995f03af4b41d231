import AppStoreServerAPI
import Foundation
import Synchronization

/// The demo's mutable state behind one lock; routes read and write it in short critical sections
/// and sign outside them.
final class DemoStore: Sendable {
    let signer: JWSSigner
    private let state: Mutex<DemoDataset>
    private let webhookURL: Mutex<URL?>
    let clock: @Sendable () -> Date
    /// Fault injection: every JWS served has one signature byte changed.
    let corruptSignatures: Bool

    init(dataset: DemoDataset, signer: JWSSigner, webhookURL: URL?, corruptSignatures: Bool = false, clock: @escaping @Sendable () -> Date) {
        self.state = Mutex(dataset)
        self.corruptSignatures = corruptSignatures
        self.signer = signer
        self.webhookURL = Mutex(webhookURL)
        self.clock = clock
    }

    var webhook: URL? {
        get { webhookURL.withLock { $0 } }
        set { webhookURL.withLock { $0 = newValue } }
    }

    func read<T>(_ environment: AppStoreEnvironment, _ body: (DemoEnvironmentData) throws(DemoAPIError) -> T) throws(DemoAPIError) -> T {
        try state.withLock { (dataset: inout DemoDataset) throws(DemoAPIError) -> T in try body(dataset[environment]) }
    }

    func write<T>(_ environment: AppStoreEnvironment, _ body: (inout DemoEnvironmentData) throws(DemoAPIError) -> T) throws(DemoAPIError) -> T {
        try state.withLock { (dataset: inout DemoDataset) throws(DemoAPIError) -> T in
            var data = dataset[environment]
            defer { dataset[environment] = data }
            return try body(&data)
        }
    }

    /// A transaction signed now, as Apple signs each answer.
    func sign(_ transaction: TransactionPayload) -> String {
        var payload = transaction
        payload.signedDate = clock()
        return served(signed(payload))
    }

    func sign(_ renewal: RenewalInfoPayload) -> String {
        var payload = renewal
        payload.signedDate = clock()
        return served(signed(payload))
    }

    func sign(_ app: AppTransactionPayload) -> String {
        var payload = app
        payload.receiptCreationDate = clock()
        return served(signed(payload))
    }

    func signed(_ payload: some Encodable) -> String {
        // The payload types encode only plain values: failure would be a programming error.
        (try? signer.sign(payload)) ?? ""
    }

    /// A stored JWS as it goes out: altered when the bad-signature fault is on.
    func served(_ jws: String) -> String {
        guard corruptSignatures, let dot = jws.lastIndex(of: "."), jws.index(after: dot) < jws.endIndex else { return jws }
        var characters = Array(jws)
        let position = jws.distance(from: jws.startIndex, to: jws.index(after: dot)) + 3
        guard position < characters.count else { return jws }
        characters[position] = characters[position] == "A" ? "B" : "A"
        return String(characters)
    }
}
