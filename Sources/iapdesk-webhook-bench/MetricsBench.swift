import DemoServer
import Foundation
import WebhookReceiver
import WebhookStore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the receiver's metrics cost: its rate of valid notifications with /metrics on and off.
extension WebhookBench {
    /// Two receivers in this process, one with the metrics on (the default) and one with them off
    /// (`--metrics-path none`), each with a store of its own, sent the same kind of notifications by
    /// the raw client in alternating rounds (so that both see the machine alike); each one's median
    /// round is compared, beside the limit of 95 %.
    func measureMetricsCost(_ folder: String, rounds: Int = 5) async throws {
        let demo = try await DemoServer.start()
        let count = min(self.count, 2000)
        var receivers: [(name: String, receiver: NotificationReceiver, store: SQLiteNotificationStore)] = []
        for (name, metricsPath) in [("on", "/metrics"), ("off", nil)] as [(String, String?)] {
            let store = try await SQLiteNotificationStore.open(path: "\(folder)-\(name).sqlite")
            var configuration = NotificationReceiver.Configuration()
            configuration.port = 0
            configuration.metricsPath = metricsPath
            receivers.append((name, try await NotificationReceiver.start(configuration, verifier: try demo.makeVerifier(), store: store), store))
        }
        var rates: [String: [Double]] = [:]
        var wrong = 0
        for round in 0..<rounds {
            for index in round % 2 == 0 ? [0, 1] : [1, 0] {
                let (name, receiver, _) = receivers[index]
                // New notifications each round (signed before the clock starts): every one is stored.
                let bodies = try Self.bodies(count, demo: demo)
                let lanes = (0..<concurrency).map { lane in Array(stride(from: lane, to: bodies.count, by: concurrency).map { bodies[$0] }) }
                let started = ContinuousClock.now
                wrong += await Self.run(lanes, port: receiver.port, path: receiver.configuration.path, expecting: 200)
                rates[name, default: []].append(Double(count) / Self.seconds(ContinuousClock.now - started))
            }
        }
        if let metrics = receivers[0].receiver.metricsURL {
            // Scraped once, as Prometheus would: the figures are only worth having if this works.
            var request = URLRequest(url: metrics)
            request.httpMethod = "GET"
            let scraped = (try? await URLSession.shared.data(for: request)).map { String(decoding: $0.0, as: UTF8.self) } ?? ""
            let stored = scraped.split(separator: "\n").filter { $0.hasPrefix("iapdesk_receiver_notifications_stored_total{") }
                .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }.reduce(0, +)
            print("# /metrics counted \(Int(stored)) stored of \(rounds * count) sent to the receiver with metrics on")
        }
        let on = Self.percentile(rates["on"] ?? [], 0.5)
        let off = Self.percentile(rates["off"] ?? [], 0.5)
        Self.figure("receiver_metrics_on_c\(concurrency)", on, "notifications/s (median of \(rounds) rounds of \(count))")
        Self.figure("receiver_metrics_off_c\(concurrency)", off, "notifications/s (median of \(rounds) rounds of \(count); \(wrong) not 200 in all)")
        Self.figure(
            "receiver_metrics_on_over_off", off > 0 ? 100 * on / off : 0,
            "% (limit 95 %; rounds on \(rates["on", default: []].map { String(format: "%.0f", $0) }.joined(separator: " ")), off \(rates["off", default: []].map { String(format: "%.0f", $0) }.joined(separator: " ")))")
        for (_, receiver, store) in receivers {
            await receiver.stop()
            try await store.close()
        }
        await demo.stop()
    }
}
