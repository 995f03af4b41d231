import AppStoreServerAPI
import ArgumentParser
import Console
import DeskCore
import DeskStore
import Foundation
import PostgresStore
import WebhookReceiver

/// What the console reads arrivals from, and the receiver it runs when asked to.
struct ConsoleReceiver {
    let received: ReceivedNotifications
    let receiver: NotificationReceiver?
    let store: (any NotificationStore)?
    /// Hands the demo's notifications back to the receiver they went to before this one.
    var releaseWebhook: (@Sendable () -> Void)?

    /// With `listen` set, opens (or makes) the store and starts the receiver before the console
    /// draws, so a port already taken is said on the command line; otherwise only reads the store.
    /// `receivingElsewhere`: the receiver of another process that writes the store (the demo's `listen`), said in the Live pane.
    static func start(
        _ options: LiveOptions, location: StoreLocation, listen: String?, verifier: SignedDataVerifier?, receivingElsewhere: URL? = nil
    ) async throws -> ConsoleReceiver {
        let forward = options.forwardURL
        let replay: ReceivedNotifications.Replayer = { store, notification, url in
            let sender = ReplaySender(target: url, command: "console", timeout: 10, store: store)
            do {
                let attempt = try await sender.send(notification.rawBody, notificationUUID: notification.notificationUUID, source: .store)
                return ReplayOutcome(result: attempt.result, status: attempt.status, milliseconds: attempt.milliseconds)
            } catch {
                return ReplayOutcome(result: "\(error)", status: nil, milliseconds: 0)
            }
        }
        guard let listen else {
            let received = ReceivedNotifications(
                source: LiveSource(storePath: location.description, receiverURL: receivingElsewhere, forwardURL: forward),
                open: { try await Self.openForReading(location) }, replay: replay)
            return ConsoleReceiver(received: received, receiver: nil, store: nil, releaseWebhook: nil)
        }
        guard let verifier else {
            throw CLIError("--listen needs a verifier for the notifications.", hint: "Set the profile's bundle_id and environment.", status: .configuration)
        }
        let store = try await StoreAccess.open(location)
        let (host, port) = try ListenAddress.split(listen)
        var configuration = NotificationReceiver.Configuration()
        configuration.host = host
        configuration.port = port
        if let forward { configuration.forward = ForwardConfiguration(url: forward) }
        let receiver: NotificationReceiver
        do {
            receiver = try await NotificationReceiver.start(configuration, verifier: verifier, store: store)
        } catch {
            try? await store.close()
            throw CLIError("The console's receiver cannot start: \(error)", hint: "Choose another --listen address (port 0 picks a free one).", status: .configuration)
        }
        let received = ReceivedNotifications(
            source: LiveSource(storePath: location.description, receiverURL: receiver.url, forwardURL: forward), open: { store }, replay: replay)
        return ConsoleReceiver(received: received, receiver: receiver, store: store, releaseWebhook: nil)
    }

    /// The Live pane opens the store when it first polls; a file not made yet is "nothing yet".
    private static func openForReading(_ location: StoreLocation) async throws -> any NotificationStore {
        switch location {
        case .file(let path): return try await SQLiteNotificationStore.open(path: path, create: false)
        case .postgres(let address): return try await PostgresNotificationStore.open(address, applicationName: StoreOptions.commandName)
        }
    }

    func stop() async {
        _ = await receiver?.stop()
        releaseWebhook?()
        await received.close()
        try? await store?.close()
    }
}
