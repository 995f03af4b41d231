import AppStoreServerAPI
import DemoServer
import DeskCore
import Foundation

/// The console against the embedded demo server: `iapdesk demo`, `iapdesk --demo`, and the
/// demo the console's first run offers.
enum DemoConsole {
    @MainActor
    static func open(
        live: LiveOptions, themeName: String?, environment: String = "Production", timeout: Double? = nil, consumptionPolicy: String? = nil,
        exitAfterFirstFrame: Bool = false
    ) async throws {
        let session = try await Session.openDemo(environment: environment, timeout: try timeout.map { try ProfileParsing.timeoutFlag($0) })
        let receiver = try await receiver(live, session: session)
        try await ConsoleLauncher.launch(
            session: session, themeName: themeName, isDemo: true, receiver: receiver, consumptionPolicy: consumptionPolicy,
            exitAfterFirstFrame: exitAfterFirstFrame)
    }

    /// The demo receives its own notifications into the demo's store (every --demo command's) unless
    /// --store names one, with some deliveries made to fail; the real store is never written.
    static func receiver(_ live: LiveOptions, session: Session) async throws -> ConsoleReceiver {
        var receiver: ConsoleReceiver
        // A `listen --demo` running in another shell keeps the demo's notifications (it may forward
        // them to the app): the console shows what it stores, the one demo store, and takes nothing.
        let elsewhere = live.listen == nil ? session.demo?.sharedWebhookURL.flatMap { ReceiverProbe.isListening($0) ? $0 : nil } : nil
        do {
            let store = try await StoreAccess.resolve(live.storeOptions, session: session)
            receiver = try await ConsoleReceiver.start(
                live, location: store.location, listen: elsewhere == nil ? live.listen ?? "127.0.0.1:0" : nil, verifier: session.verifier,
                receivingElsewhere: elsewhere)
        } catch {
            await session.close()
            throw error
        }
        if let url = receiver.receiver?.url, let demo = session.demo {
            let previous = demo.shareWebhook(url)
            receiver.releaseWebhook = { demo.withdrawWebhook(url, restoring: previous) }
            demo.injectDeliveryFaults(DeliveryFault.walkthrough)
        }
        return receiver
    }
}
