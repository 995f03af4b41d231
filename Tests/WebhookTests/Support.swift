import AppStoreServerAPI
import DemoServer
import DeskStore
import Foundation
import Synchronization
import WebhookReceiver

/// A temporary folder removed at the end of a test.
struct TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-hooks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    var storePath: String { url.appendingPathComponent("data/notifications.sqlite").path }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// Notification bodies signed by the demo server's chain, as the demo sends them.
struct Notifications: Sendable {
    let demo: DemoServer

    /// A DID_RENEW about a transaction, with the transaction nested and signed on its own.
    func payload(
        uuid: String = UUID().uuidString.lowercased(), type: NotificationType = .didRenew, subtype: NotificationSubtype? = nil,
        bundleId: String = DemoServer.bundleId, environment: AppStoreEnvironment = .production, transactionId: String = "2000000123456789"
    ) throws -> String {
        var transaction = TransactionPayload()
        transaction.transactionId = transactionId
        transaction.originalTransactionId = "2000000000000001"
        transaction.bundleId = bundleId
        transaction.productId = "com.iapdesk.demo.pro.monthly"
        transaction.environment = environment
        transaction.signedDate = Date()
        var data = NotificationData()
        data.environment = environment
        data.appAppleId = DemoServer.appAppleId
        data.bundleId = bundleId
        data.signedTransactionInfo = try demo.sign(transaction)
        var payload = NotificationPayload()
        payload.notificationType = type
        payload.subtype = subtype
        payload.notificationUUID = uuid
        payload.version = "2.0"
        payload.signedDate = Date()
        payload.data = data
        return try demo.sign(payload)
    }

    static func body(_ jws: String) -> Data {
        Data(#"{"signedPayload":"\#(jws)"}"#.utf8)
    }

    /// The JWS with one character of its signature changed.
    static func tampered(_ jws: String) -> String {
        var characters = Array(jws)
        let index = characters.count - 10
        characters[index] = characters[index] == "A" ? "B" : "A"
        return String(characters)
    }
}

/// Arrivals reported by a receiver, for tests to look at.
final class ArrivalLog: Sendable {
    private let arrivals = Mutex<[Arrival]>([])

    func append(_ arrival: Arrival) { arrivals.withLock { $0.append(arrival) } }

    var all: [Arrival] { arrivals.withLock { $0 } }
}

struct HTTPAnswer {
    let status: Int
    let body: Data

    var error: String? {
        (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["error"] as? String
    }
}

enum Poster {
    /// The process's shared HTTP client, as iapdesk's own requests use.
    static let transport = AsyncHTTPClientTransport()

    static func post(_ body: Data, to url: URL, method: String = "POST", contentType: String = "application/json") async throws -> HTTPAnswer {
        let sendsBody = method != "GET"
        let request = HTTPRequest(
            method: method, url: url, headers: sendsBody ? [("Content-Type", contentType)] : [], body: sendsBody ? body : nil,
            // A bound only a hang reaches: a receiver on a loaded machine may take tens of seconds to answer.
            timeout: 120)
        let response = try await transport.send(request)
        return HTTPAnswer(status: response.status, body: response.body)
    }
}

/// A demo server for signing, a store in a temporary folder and a receiver on a free loopback port.
struct ReceiverBench {
    let demo: DemoServer
    let folder: TemporaryFolder
    let store: any NotificationStore
    let receiver: NotificationReceiver
    let log: ArrivalLog
    var notifications: Notifications { Notifications(demo: demo) }
    var url: URL { receiver.url }

    /// With `sharing`, the demo (and so the chain it trusts) is the other bench's.
    static func start(
        store makeStore: ((String) async throws -> any NotificationStore)? = nil, sharing other: ReceiverBench? = nil,
        configure: (inout NotificationReceiver.Configuration) -> Void = { _ in }
    ) async throws -> ReceiverBench {
        let demo: DemoServer
        if let other { demo = other.demo } else { demo = try await DemoServer.start() }
        let folder = try TemporaryFolder()
        let store: any NotificationStore
        if let makeStore {
            store = try await makeStore(folder.storePath)
        } else {
            store = try await SQLiteNotificationStore.open(path: folder.storePath)
        }
        var configuration = NotificationReceiver.Configuration()
        configuration.port = 0
        // Only tests of outages hold the store to the receiver's deadline: a loaded machine may take longer.
        configuration.storeDeadline = .seconds(600)
        configure(&configuration)
        let log = ArrivalLog()
        let receiver = try await NotificationReceiver.start(configuration, verifier: try demo.makeVerifier(), store: store) { log.append($0) }
        return ReceiverBench(demo: demo, ownsDemo: other == nil, folder: folder, store: store, receiver: receiver, log: log)
    }

    let ownsDemo: Bool

    init(demo: DemoServer, ownsDemo: Bool, folder: TemporaryFolder, store: any NotificationStore, receiver: NotificationReceiver, log: ArrivalLog) {
        self.demo = demo
        self.ownsDemo = ownsDemo
        self.folder = folder
        self.store = store
        self.receiver = receiver
        self.log = log
    }

    func post(_ body: Data, path: String? = nil, method: String = "POST") async throws -> HTTPAnswer {
        var url = receiver.url
        if let path { url = URL(string: "http://127.0.0.1:\(receiver.port)\(path)")! }
        return try await Poster.post(body, to: url, method: method)
    }

    func stop() async {
        await receiver.stop()
        try? await store.close()
        if ownsDemo { await demo.stop() }
        folder.remove()
    }
}
