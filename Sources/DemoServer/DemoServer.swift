import AppStoreServerAPI
import Crypto
import Foundation
import HTTPServing
import HTTPTypes
import Hummingbird
import JWTKit
import Logging
import NIOCore
import ServiceLifecycle

/// The embedded App Store Server: a real HTTP server on loopback serving Apple's paths, JSON and
/// errors from a deterministic dataset, with real JWT checks and real JWS signatures.
public final class DemoServer: Sendable {
    public struct Configuration: Sendable {
        public var host = "127.0.0.1"
        /// 0 picks a free port.
        public var port = 0
        /// Which environment `baseURL` serves; the other one is under `/sandbox` or at the root.
        public var environment: AppStoreEnvironment = .production
        public var webhookURL: URL?
        public var webhookTimeout: TimeInterval = 5
        public var faults = DemoFaults()
        /// The request-signing key clients must use; a new one is made when nil.
        public var signingKey: P256.Signing.PrivateKey?
        public var seed: UInt64 = DemoDataset.defaultSeed
        /// The moment the dataset is built around; defaults to now.
        public var anchor: Date?
        /// Keep every signed string served, for `servedSignatures()` (tests).
        public var recordsServedSignatures = false
        /// A folder to keep the demo's state in between runs (see `DemoStateFolder`): its anchor and
        /// signing chain are made once, and the writes it accepts are journaled and replayed at the
        /// next start. `anchor` is then ignored. Nil: a fresh dataset every run.
        public var stateFolder: String?
        public var logger = Logger(label: "iapdesk.demo")
        /// Retention Messaging: review delay, quotas, the performance test's load and transport.
        public var retention = DemoRetentionSettings()

        public init() {}
    }

    public static let keyId = "DEMO2X9R4H"
    public static let issuerId = "7a3c5f10-1d2e-4b6a-9c8d-0e1f2a3b4c5d"
    public static var bundleId: String { DemoCatalog.bundleId }
    public static var appAppleId: Int64 { DemoCatalog.appAppleId }

    /// Production answers here, Sandbox under `sandboxURL`.
    public let productionURL: URL
    public let sandboxURL: URL
    public let environment: AppStoreEnvironment
    public let signingKey: P256.Signing.PrivateKey
    /// Root of the chain the demo signs with: trust it (and only it) to verify demo data.
    public let rootCertificateDER: Data
    public let port: Int
    let store: DemoStore
    private let faults: FaultInjector
    private let activityFeed: DemoActivityFeed
    private let group: ServiceGroup
    private let task: Task<Void, any Error>
    private let seeds: @Sendable (AppStoreEnvironment) -> DemoSeedIDs
    /// What a demo keeping its state started from; nil for a fresh one.
    public let keptState: DemoKeptState?
    /// Held while the server runs, so `demo --reset` does not remove the state it writes to.
    private let inUse: LockedFile?

    public var baseURL: URL { environment == .sandbox ? sandboxURL : productionURL }
    public var seedURL: URL { baseURL.appendingPathComponent("demo/seed-ids.json") }
    /// A notification receiver built into the demo that answers 200, for offline test notifications.
    public var receiverURL: URL { productionURL.appendingPathComponent("demo/webhook") }

    public var credentials: Credentials {
        Credentials(issuerId: Self.issuerId, keyId: Self.keyId, bundleId: Self.bundleId, signingKey: SigningKey(signingKey))
    }

    /// Where this process's notifications go, unless a receiver shared one (`shareWebhook`).
    public var webhookURL: URL? {
        get { store.webhook }
        set { store.webhook = newValue }
    }

    /// What the demo's own receiver (`receiverURL`) does with each body it takes: answered 200 when
    /// `keep` says it was kept, 503 (retried, as Apple would) when not.
    public func keepOwnDeliveries(_ keep: @escaping @Sendable (Data) async -> Bool) {
        store.ownReceiver.withLock { $0 = keep }
    }

    /// Makes `url` where every demo process on this state folder sends its notifications, as the
    /// URL set in App Store Connect is for every server of Apple's: a `test-notification --demo`
    /// in one shell reaches the `listen --demo` of another. It stays after the receiver stops (its
    /// deliveries then fail, as to an endpoint that is down) until another is shared or the demo
    /// is reset. Without kept state it is this process's alone.
    @discardableResult
    public func shareWebhook(_ url: URL) -> URL? {
        store.shareWebhook(url)
    }

    /// The receiver the state folder names for every demo process, if any.
    public var sharedWebhookURL: URL? { store.sharedWebhookURL }

    /// Hands the demo's notifications back to `previous` (or to nobody) when `url` still has them.
    public func withdrawWebhook(_ url: URL, restoring previous: URL?) {
        store.withdrawWebhook(url, restoring: previous)
    }

    /// Every JWS served so far (answers and deliveries), in order, when the configuration asked to
    /// record them: what a client shows can be compared with exactly what the server signed.
    public func servedSignatures() -> [String] { store.servedSignatures }

    /// Makes the coming deliveries of new notifications fail in this cycle (TEST notifications never do).
    public func injectDeliveryFaults(_ pattern: [DeliveryFault]) { store.deliveryFaults.set(pattern) }

    /// The notification history of `environment`, oldest first, as it was delivered.
    public func notificationHistory(_ environment: AppStoreEnvironment) -> [DemoHistoryEntry] {
        let store = self.store
        let notes = (try? store.read(environment) { data throws(DemoAPIError) in data.notifications }) ?? []
        return notes.map { note in
            let body = (try? JSONSerialization.data(withJSONObject: ["signedPayload": store.servedNotification(note.signedPayload)])) ?? Data()
            return DemoHistoryEntry(notificationUUID: note.uuid, body: body, attempts: note.attempts)
        }
    }

    /// The refund requests the data shows answered already (by the app's policy), with the answers:
    /// the demo's audit ledger is seeded with them, as if they had been sent.
    public func seededAnswers(_ environment: AppStoreEnvironment) -> [DemoSeededAnswer] {
        (try? store.read(environment) { data throws(DemoAPIError) in data.seededAnswers }) ?? []
    }

    /// Builds the dataset, binds the port and returns once the server accepts connections.
    public static func start(_ configuration: Configuration = Configuration()) async throws -> DemoServer {
        var anchor = configuration.anchor ?? Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let authority: SigningCertificateAuthority
        var opened: DemoStateFolder.Opened?
        if let path = configuration.stateFolder {
            let folder = try DemoStateFolder(path: path).open(now: Date())
            anchor = folder.anchor
            authority = folder.authority
            opened = folder
        } else {
            authority = try signingAuthority(anchor: anchor)
        }
        var dataset = DemoDataset.build(anchor: anchor, signer: authority.signer, seed: configuration.seed)
        var kept: DemoKeptState?
        var journalEnd = UInt64(0)
        if let opened {
            let read: (entries: [DemoJournalEntry], skipped: [DemoJournal.Skipped], end: UInt64)
            do {
                read = try opened.journal.read()
            } catch {
                opened.inUse.close()
                throw error
            }
            for entry in read.entries { dataset[entry.environment].apply(entry) }
            journalEnd = read.end
            kept = DemoKeptState(
                path: configuration.stateFolder ?? "", anchor: anchor, replayed: read.entries.count,
                skipped: read.skipped.map { ($0.line, $0.reason) }, journalPath: opened.journal.path)
        }
        let store = DemoStore(
            dataset: dataset, signer: authority.signer, webhookURL: configuration.webhookURL,
            corruptSignatures: configuration.faults.badSignatures, recordsServed: configuration.recordsServedSignatures,
            journal: opened?.journal, journalOffset: journalEnd, clock: { Date() })
        let key = configuration.signingKey ?? P256.Signing.PrivateKey()
        let authenticator = await RequestAuthenticator(
            publicKey: try ES256PublicKey(backing: key.publicKey), keyId: keyId, issuerId: issuerId, bundleId: DemoCatalog.bundleId)
        let productionSeeds = dataset.production.seedIDs()
        let sandboxSeeds = dataset.sandbox.seedIDs()
        let seeds: @Sendable (AppStoreEnvironment) -> DemoSeedIDs = { $0 == .sandbox ? sandboxSeeds : productionSeeds }
        let faults = FaultInjector(configuration.faults)
        let api = DemoAPI(
            store: store, authenticator: authenticator, faults: faults,
            webhookTimeout: configuration.webhookTimeout, logger: configuration.logger, seeds: seeds,
            retention: configuration.retention)

        var logger = configuration.logger
        logger.logLevel = .warning
        let server = await BoundServices.start(logger: logger, [{ onServerRunning in
            Application(
                responder: CallbackResponder<BasicRequestContext> { request, _ in
                    try await Self.respond(to: request, with: api)
                },
                configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
                onServerRunning: onServerRunning,
                logger: logger)
        }])
        let port = server.ports[0]
        guard port > 0 else {
            await server.cancel()
            opened?.inUse.close()
            throw DemoServerError.couldNotBind(host: configuration.host, port: configuration.port)
        }
        api.resumePendingWork()
        return DemoServer(
            productionURL: URL(string: "http://\(configuration.host):\(port)")!,
            sandboxURL: URL(string: "http://\(configuration.host):\(port)/sandbox")!,
            environment: configuration.environment, signingKey: key, rootCertificateDER: authority.rootDER, port: port,
            store: store, faults: faults, activity: api.activity, group: server.group, task: server.task, seeds: seeds, keptState: kept, inUse: opened?.inUse)
    }

    /// The chain the demo signs with: valid from before the oldest signed date in the dataset
    /// (notification history reaches 180 days back) to long after.
    static func signingAuthority(anchor: Date) throws -> SigningCertificateAuthority {
        try SigningCertificateAuthority(
            validFrom: anchor.addingTimeInterval(-5 * 365 * 86_400), validUntil: anchor.addingTimeInterval(10 * 365 * 86_400),
            name: "iapdesk Demo")
    }

    private init(
        productionURL: URL, sandboxURL: URL, environment: AppStoreEnvironment, signingKey: P256.Signing.PrivateKey,
        rootCertificateDER: Data, port: Int, store: DemoStore, faults: FaultInjector, activity: DemoActivityFeed, group: ServiceGroup, task: Task<Void, any Error>,
        seeds: @escaping @Sendable (AppStoreEnvironment) -> DemoSeedIDs, keptState: DemoKeptState?, inUse: LockedFile?
    ) {
        self.keptState = keptState
        self.inUse = inUse
        self.productionURL = productionURL
        self.sandboxURL = sandboxURL
        self.environment = environment
        self.signingKey = signingKey
        self.rootCertificateDER = rootCertificateDER
        self.port = port
        self.store = store
        self.faults = faults
        self.activityFeed = activity
        self.group = group
        self.task = task
        self.seeds = seeds
    }

    /// Stops accepting requests and waits for the server to wind down; injected delays end at once,
    /// so requests held by them do not hold the stop.
    public func stop() async {
        faults.stop()
        // Deliveries under way land first when the state is kept: their results are part of it
        // (a test notification's status is asked for by the next run).
        // Each ends within the webhook's timeout.
        if keptState != nil { await store.drain() }
        await group.triggerGracefulShutdown()
        _ = try? await task.value
        activityFeed.finish()
        inUse?.close()
    }

    /// The requests this server receives and answers from now on, as it does (the stream ends when
    /// the server stops): to wait for a request to arrive, or for a write to be applied.
    public func activity() -> AsyncStream<DemoActivity> { activityFeed.stream() }

    /// Answers the requests the `holdUntilReleased` fault holds, and every later one at once.
    public func releaseHeldRequests() { faults.release() }

    /// Returns once every delivery under way has recorded its send attempt (each ends within the
    /// webhook's timeout); deliveries start before the request that makes them is answered.
    public func deliveriesLanded() async { await store.drain() }

    /// Whether `url` names the demo's own Get Retention Message endpoint (`https://localhost/demo/realtime`).
    public static func isOwnRealtimeEndpoint(_ url: String) -> Bool { PerformanceTestRun.isOwnEndpoint(url) }

    public func seedIDs(_ environment: AppStoreEnvironment? = nil) -> DemoSeedIDs { seeds(environment ?? self.environment) }

    public func serverEnvironment(_ environment: AppStoreEnvironment) -> ServerEnvironment {
        ServerEnvironment(environment: environment, baseURL: environment == .sandbox ? sandboxURL : productionURL)
    }

    /// A client for this server, with the documented Sandbox fallback when it starts in Production.
    public func makeClient(
        environment: AppStoreEnvironment? = nil, transport: any HTTPTransport = AsyncHTTPClientTransport(),
        retryPolicy: RetryPolicy = RetryPolicy(), timeout: TimeInterval = 30, callTimeout: TimeInterval? = nil
    ) throws -> AppStoreServerClient {
        let environment = environment ?? self.environment
        return try AppStoreServerClient(
            credentials: credentials, environment: serverEnvironment(environment),
            fallbackEnvironment: environment == .production ? serverEnvironment(.sandbox) : nil,
            transport: transport, retryPolicy: retryPolicy, timeout: timeout, callTimeout: callTimeout)
    }

    /// A verifier that trusts this server's root (and not Apple's) for the given environment.
    public func makeVerifier(environment: AppStoreEnvironment? = nil) throws -> SignedDataVerifier {
        let environment = environment ?? self.environment
        return try SignedDataVerifier(
            bundleId: Self.bundleId, appAppleId: environment == .production ? Self.appAppleId : nil,
            environment: environment, additionalRoots: [rootCertificateDER], trustAppleRoot: false)
    }

    /// Signs any payload with the demo's chain, as the demo signs what it serves and sends: tests and
    /// self-tests make notification bodies with it that `makeVerifier()` accepts.
    public func sign(_ payload: some Encodable) throws -> String {
        try store.signer.sign(payload)
    }

    /// The body of a TEST notification signed at `signedDate`, as Request a Test Notification sends
    /// one: it is not in the notification history.
    public func testNotificationBody(signedDate: Date) -> (notificationUUID: String, signedDate: Date, body: Data) {
        var payload = NotificationPayload.demo(.test, nil, uuid: UUID().uuidString.lowercased(), signedDate: signedDate)
        payload.data = .demoApp(environment)
        let signed = store.signed(payload)
        return (payload.notificationUUID ?? "", signedDate, (try? JSONSerialization.data(withJSONObject: ["signedPayload": signed])) ?? Data())
    }

    // MARK: HTTP adapter

    static func respond(to request: Request, with api: DemoAPI) async throws -> Response {
        let path = request.uri.path
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
            .map { String($0).removingPercentEncoding ?? String($0) }
        var query: [(name: String, value: String)] = []
        if let raw = request.uri.query, !raw.isEmpty {
            for pair in raw.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
                let value = parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? String(parts[1])) : ""
                query.append((name, value))
            }
        }
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        // Image uploads carry a PNG; every other body is a small JSON document.
        let limit = request.method == .put && segments.contains("image") ? RetentionImageCheck.largestFile : 1 << 20
        let buffer = try await request.body.collect(upTo: limit)
        let body = Data(buffer.readableBytesView)
        let demo = DemoRequest(method: request.method.rawValue, segments: segments, query: query, headers: headers, body: body)
        api.activity.report(.received(method: demo.method, path: path))
        let answer = await api.handle(demo)
        api.activity.report(.answered(method: demo.method, path: path, status: answer.status))
        var fields = HTTPFields()
        for header in answer.headers {
            if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
        }
        return Response(
            status: HTTPTypes.HTTPResponse.Status(code: answer.status), headers: fields,
            body: answer.trickle > 0 ? trickled(answer.body, faults: api.faults) : ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
    }

    /// The body one byte at a time (the trickle fault): the headers arrive at once, the rest slowly.
    static func trickled(_ body: Data, faults: FaultInjector) -> ResponseBody {
        ResponseBody(contentLength: body.count) { writer in
            var index = body.startIndex
            while index < body.endIndex {
                // When the server stops, the rest goes at once.
                let end = await faults.trickleWait() ? body.index(after: index) : body.endIndex
                try await writer.write(ByteBuffer(bytes: body[index..<end]))
                index = end
            }
            try await writer.finish(nil)
        }
    }
}

public enum DemoServerError: Error, CustomStringConvertible {
    case couldNotBind(host: String, port: Int)

    public var description: String {
        switch self {
        case .couldNotBind(let host, let port):
            return "The demo server could not listen on \(host):\(port); the port may be in use (try --port 0 for a free one)."
        }
    }
}
