import AppStoreServerAPI
import DeskStore
import Foundation
import WebhookReceiver

/// Where the receiver's CPU time per notification goes, each part measured on its own in the same
/// run: the body's signed payload found and verified with its nested transaction, and the
/// delivery built (`NotificationIntake`, on one thread); the durable write with 16 in flight (the
/// store, its group commit and its threads). What is left of the whole is the HTTP server, the
/// handler and the hops between threads.
extension WebhookBench {
    struct ReceiverCosts {
        /// CPU seconds per notification of each part.
        var intake: Double
        var store: Double
    }

    static func receiverCosts(_ bodies: [Data], verifier: SignedDataVerifier, storePath: String) async throws -> ReceiverCosts {
        var deliveries: [NotificationDelivery] = []
        deliveries.reserveCapacity(bodies.count)
        // The receiver is idle meanwhile: the process's CPU time is the intake's.
        let before = SenderLanes.processCPUSeconds()
        for body in bodies {
            guard case .success(let delivery) = await NotificationIntake.delivery(
                from: body, verifier: verifier, receivedAt: Date(), remoteAddress: "127.0.0.1:1")
            else { throw BenchError("a bench body did not verify") }
            deliveries.append(delivery)
        }
        let intake = (SenderLanes.processCPUSeconds() - before) / Double(bodies.count)

        let store = try await SQLiteNotificationStore.open(path: storePath)
        let written = deliveries
        let writing = SenderLanes.processCPUSeconds()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<16 {
                group.addTask {
                    for index in stride(from: lane, to: written.count, by: 16) { _ = try await store.record(written[index]) }
                }
            }
            try await group.waitForAll()
        }
        let perWrite = (SenderLanes.processCPUSeconds() - writing) / Double(written.count)
        try await store.close()
        return ReceiverCosts(intake: intake, store: perWrite)
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
