import AppStoreServerAPI
import DeskStore
import Foundation
import HTTPServing
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle
import Synchronization

/// An HTTP receiver for App Store Server Notifications V2. Each POST to `path` is read (never more
/// than `maxBodyBytes`), parsed, verified with the profile's verifier, stored, and only then answered
/// 200, so that Apple retries whatever was not durably stored. Refused bodies are answered 400 with
/// the reason and kept in the store's quarantine; when the store cannot be written the answer is 503.
public final class NotificationReceiver: Sendable {
    public struct Configuration: Sendable {
        public var host = "127.0.0.1"
        /// 0 picks a free port.
        public var port = 8080
        public var path = "/appstore/notifications"
        /// Apple's notifications are a few KiB; anything bigger than this is refused unread.
        public var maxBodyBytes = 1 << 20
        /// Of a body too large, this much is read (and kept in quarantine within `quarantine`'s limits).
        public var quarantinedPrefixBytes = 64 << 10
        /// How much of what is refused is kept.
        public var quarantine = QuarantineLimits()
        /// Refused bodies written a second at most, in bursts of twice that; the others are answered
        /// without being kept (0: every one is written).
        public var quarantineWritesPerSecond: Double = 50
        /// Requests handled at once; the others wait their turn.
        public var maxConcurrentRequests = 64
        /// Open connections at most (each waits for a free request slot).
        public var maxConnections = 512
        /// How long a request (head and body) may take to arrive, from its first byte; a connection
        /// idle for 10 s more is closed.
        public var readTimeout: Duration = .seconds(10)
        /// Connections one peer address may have open at once (0: no limit).
        public var maxConnectionsPerPeer = 32
        /// Requests a second one peer address may make, in bursts of up to twice that; beyond it
        /// the answer is 429 (0: no limit).
        public var maxRequestsPerSecondPerPeer: Double = 0
        /// Peers held to neither per-peer limit: loopback (a reverse proxy on this machine) and
        /// Apple's notification senders (17.0.0.0/8).
        public var unlimitedPeers: [PeerRange] = PeerRange.loopback + [PeerRange.apple]
        /// Where the metrics are served (GET, Prometheus text); nil serves none (and, without a
        /// `metricsAddress`, counts none).
        public var metricsPath: String? = "/metrics"
        /// A second listener (plain HTTP) for the metrics (at `metricsPath`, "/metrics" when nil) and
        /// /healthz, away from the public address, which then answers the metrics path 404. Port 0 picks a free one.
        public var metricsAddress: (host: String, port: Int)?
        /// How long a stop waits for requests in flight before cutting them off.
        public var drainTimeout: Duration = .seconds(10)
        /// How long a write to the store may take: past it the request is answered 503 at once.
        public var storeDeadline: Duration = WriteDeadline.standard
        /// With nothing written for this long, /healthz asks the store whether it can be written.
        public var storeHealthQuiet: Duration = .seconds(5)
        /// Told when the store's writes begin to fail (with why) and when one succeeds again.
        public var onStoreHealth: @Sendable (StoreHealthEvent) -> Void = { _ in }
        /// Where each stored notification is sent on to, and whether its answer is the sender's.
        public var forward: ForwardConfiguration?
        /// HTTPS with this certificate chain and key (PEM files); plain HTTP when nil.
        public var tls: TLSFiles?
        public var logger = Logger(label: "iapdesk.listen")

        public init() {}
    }

    public struct TLSFiles: Sendable {
        public var certificateChainPath: String
        public var privateKeyPath: String

        public init(certificateChainPath: String, privateKeyPath: String) {
            self.certificateChainPath = certificateChainPath
            self.privateKeyPath = privateKeyPath
        }
    }

    public let configuration: Configuration
    public let port: Int
    /// The metrics listener's port, with a `metricsAddress`.
    public let metricsPort: Int?
    /// Where the metrics are served: on the metrics address when there is one, else on the receiver's; nil when off.
    public var metricsURL: URL? {
        if let address = configuration.metricsAddress, let metricsPort {
            let host = address.host.contains(":") ? "[\(address.host)]" : address.host
            return URL(string: "http://\(host):\(metricsPort)\(configuration.metricsPath ?? "/metrics")")
        }
        guard let path = configuration.metricsPath else { return nil }
        return URL(string: "\(configuration.tls == nil ? "http" : "https")://\(configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host):\(port)\(path)")
    }
    public var url: URL { URL(string: "\(configuration.tls == nil ? "http" : "https")://\(configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host):\(port)\(configuration.path)")! }
    private let group: ServiceGroup
    private let task: Task<Void, any Error>
    private let handler: DeliveryHandler
    private let cutOffCount = Mutex(0)

    /// Binds the port and returns once the receiver accepts connections.
    public static func start(
        _ configuration: Configuration, verifier: SignedDataVerifier, store: any NotificationStore,
        onArrival: @escaping @Sendable (Arrival) -> Void = { _ in }
    ) async throws -> NotificationReceiver {
        let handler = DeliveryHandler(configuration: configuration, verifier: verifier, store: store, onArrival: onArrival)
        var logger = configuration.logger
        logger.logLevel = .critical
        // Idle connections close 10 s after the read timeout: well after a request's own body
        // deadline, so a body that stops arriving is still answered 408 (and kept), even on a busy machine.
        let idle = configuration.readTimeout + .seconds(10)
        let connections = handler.connections
        let http1 = HTTPServerBuilder.http1(configuration: .init(
            additionalChannelHandlers: [ConnectionGuard(limits: connections)],
            idleTimeout: ConnectionGuard.timeAmount(idle)))
        let server = try configuration.tls.map { files in try HTTPServerBuilder.tls(http1, tlsConfiguration: try Self.tlsConfiguration(files)) } ?? http1
        var applications: [(@escaping BoundServices.OnServerRunning) -> any Service] = [{ onServerRunning in
            Application(
                responder: CallbackResponder<ReceiverContext> { request, context in
                    await handler.respond(to: request, peer: context.peer)
                },
                server: server,
                configuration: .init(
                    address: .hostname(configuration.host, port: configuration.port), serverName: nil,
                    availableConnectionsDelegate: MaximumAvailableConnections(configuration.maxConnections)),
                onServerRunning: onServerRunning,
                eventLoopGroupProvider: .shared(ReceiverEventLoops.group),
                logger: logger)
        }]
        if let address = configuration.metricsAddress {
            applications.append { onServerRunning in
                Application(
                    responder: CallbackResponder<BasicRequestContext> { request, _ in await handler.respondPrivately(to: request) },
                    configuration: .init(address: .hostname(address.host, port: address.port), serverName: nil),
                    onServerRunning: onServerRunning,
                    logger: logger)
            }
        }
        let services = await BoundServices.start(logger: logger, applications)
        let port = services.ports[0]
        let metricsPort = services.ports.count > 1 ? services.ports[1] : 0
        guard port > 0 else {
            await services.cancel()
            throw ReceiverError.couldNotBind(host: configuration.host, port: configuration.port)
        }
        if let address = configuration.metricsAddress, metricsPort == 0 {
            await services.cancel()
            throw ReceiverError.couldNotBind(host: address.host, port: address.port)
        }
        return NotificationReceiver(
            configuration: configuration, port: port, metricsPort: configuration.metricsAddress == nil ? nil : metricsPort, group: services.group, task: services.task,
            handler: handler)
    }

    /// The server side of TLS from PEM files, each failure saying which file and why.
    static func tlsConfiguration(_ files: TLSFiles) throws -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(files.certificateChainPath)
        } catch {
            throw ReceiverError.tls("the certificate \(files.certificateChainPath) cannot be read as PEM (\(error))")
        }
        guard !chain.isEmpty else { throw ReceiverError.tls("the certificate file \(files.certificateChainPath) holds no certificate") }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: files.privateKeyPath, format: .pem)
        } catch {
            throw ReceiverError.tls("the private key \(files.privateKeyPath) cannot be read as PEM (\(error))")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        return configuration
    }

    private init(
        configuration: Configuration, port: Int, metricsPort: Int?, group: ServiceGroup, task: Task<Void, any Error>, handler: DeliveryHandler
    ) {
        self.configuration = configuration
        self.port = port
        self.metricsPort = metricsPort
        self.group = group
        self.task = task
        self.handler = handler
    }

    /// Stops accepting connections and lets requests in flight finish (each still stores before it
    /// answers), for at most `drainTimeout`; then cuts off what is left. The store stays open:
    /// close it after this returns. Returns whether everything in flight finished.
    @discardableResult
    public func stop() async -> Bool {
        await group.triggerGracefulShutdown()
        let task = self.task
        // Raced, not awaited in a task group: a group would wait for the server task however long it takes.
        let drained = (try? await withinDeadline(configuration.drainTimeout) { _ = try? await task.value }) != nil
        if !drained {
            cutOffCount.withLock { $0 = inFlight + waiting }
            task.cancel()
            // A request stuck in a call that ignores cancellation must not hold the stop for ever.
            try? await withinDeadline(.milliseconds(500)) { _ = try? await task.value }
        }
        return drained
    }

    /// Requests still in flight when the last stop cut them off: none of them was answered 200.
    public var cutOff: Int { cutOffCount.withLock { $0 } }

    /// Requests being handled right now (their body read, holding a slot).
    public var inFlight: Int { handler.slots.inUse }
    /// Requests whose body is still arriving (they hold no slot).
    public var reading: Int { handler.connections.reading }
    /// Connections open right now.
    public var openConnections: Int { handler.connections.openConnections }
    /// What was refused, cut off and dropped since the start (also at `metricsPath`).
    public var counters: ReceiverCounters { handler.counters }
    /// Requests waiting for one of the `maxConcurrentRequests` slots.
    public var waiting: Int { handler.slots.waiting }
}

public enum ReceiverError: Error, CustomStringConvertible {
    case couldNotBind(host: String, port: Int)
    case tls(String)

    public var description: String {
        switch self {
        case .tls(let why): return "Cannot serve HTTPS: \(why)."
        case .couldNotBind(let host, let port):
            return "Cannot listen on \(host):\(port): the port may be in use or the address not this machine's."
        }
    }
}

/// What happened to one request, for the one line `listen` prints per arrival (and the console's
/// live pane): made for every answer, refused and unstored ones included, so it carries the status,
/// outcome and timing, and neither the body nor the payload.
public struct Arrival: Sendable, Equatable {
    public enum Outcome: String, Sendable {
        case stored, duplicate, quarantined
        /// The store could not be written: answered 503.
        case storeFailed = "store-failed"
    }

    public var receivedAt: Date
    public var outcome: Outcome
    public var status: Int
    public var milliseconds: Double
    public var notificationUUID: String?
    public var notificationType: String?
    public var subtype: String?
    /// "verified", or the reason it was refused.
    public var verdict: String
    public var detail: String?
    public var deliveryCount: Int?
    /// What the forward gave, with --forward-to.
    public var forwardResult: String?
    public var transactionId: String?
    public var remoteAddress: String?
}

/// Adds the peer to Hummingbird's basic context.
struct ReceiverContext: RequestContext {
    struct Peer: Sendable {
        /// "ip:port", as kept with each delivery.
        let address: String?
        /// What the per-peer limits count by.
        let ip: String?
        /// The connection, which `ConnectionLimits` knows the request's first byte by.
        let connection: ObjectIdentifier
    }

    var coreContext: CoreRequestContextStorage
    let peer: Peer

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        let remote = source.channel.remoteAddress
        self.peer = Peer(address: remote.map(Self.describe), ip: remote?.ipAddress, connection: ObjectIdentifier(source.channel))
    }

    static func describe(_ address: SocketAddress) -> String {
        guard let ip = address.ipAddress else { return address.description }
        guard let port = address.port else { return ip }
        return ip.contains(":") ? "[\(ip)]:\(port)" : "\(ip):\(port)"
    }
}
