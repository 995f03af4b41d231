import AppStoreServerAPI
import DemoServer
import DeskStore
import Foundation
import WebhookReceiver

/// What the receiver's metrics cost: its rate of valid notifications with /metrics on and off.
extension WebhookBench {
    /// Two receivers in this process, one with the metrics on (the default) and one with them off
    /// (`--metrics-path none`), each with a store of its own, sent the same kind of notifications by
    /// the raw client in pairs of rounds, one on each, in alternating order (so that both see the
    /// machine alike). The ratio is the median of the pairs' ratios, beside the limit of 95 %: on a
    /// shared machine the rate drifts between pairs far more than within one. The CPU of the whole
    /// process per notification (the client's included, the same on both) is printed beside.
    func measureMetricsCost(_ folder: String, pairs: Int = 16) async throws {
        let demo = try await DemoServer.start()
        // Short rounds, many pairs: the two rounds of a pair are close in time.
        let count = min(self.count, 1000)
        var receivers: [(name: String, receiver: NotificationReceiver, store: SQLiteNotificationStore)] = []
        for (name, metricsPath) in [("on", "/metrics"), ("off", nil)] as [(String, String?)] {
            let store = try await SQLiteNotificationStore.open(path: "\(folder)-\(name).sqlite")
            var configuration = NotificationReceiver.Configuration()
            configuration.port = 0
            configuration.metricsPath = metricsPath
            receivers.append((name, try await NotificationReceiver.start(configuration, verifier: try demo.makeVerifier(), store: store), store))
        }
        var rates: [String: [Double]] = [:]
        var cpu: [String: [Double]] = [:]
        var ratios: [Double] = []
        var wrong = 0
        for pair in 0..<pairs {
            // New notifications each round (signed before the clock starts): every one is stored.
            let bodies = [try Self.bodies(count, demo: demo), try Self.bodies(count, demo: demo)]
            var rate = [0.0, 0.0]
            for index in pair % 2 == 0 ? [0, 1] : [1, 0] {
                let (name, receiver, _) = receivers[index]
                let lanes = (0..<concurrency).map { lane in Array(stride(from: lane, to: count, by: concurrency).map { bodies[index][$0] }) }
                let started = ContinuousClock.now
                let cpuBefore = Self.cpuMicroseconds()
                wrong += await Self.run(lanes, port: receiver.port, path: receiver.configuration.path, expecting: 200)
                cpu[name, default: []].append((Self.cpuMicroseconds() - cpuBefore) / Double(count))
                rate[index] = Double(count) / Self.seconds(ContinuousClock.now - started)
                rates[name, default: []].append(rate[index])
            }
            ratios.append(rate[0] / rate[1])
        }
        if let metrics = receivers[0].receiver.metricsURL {
            // Scraped once, as Prometheus would: the figures are only worth having if this works.
            let request = HTTPRequest(method: "GET", url: metrics, timeout: 30)
            let scraped = (try? await AsyncHTTPClientTransport().send(request)).map { String(decoding: $0.body, as: UTF8.self) } ?? ""
            let stored = scraped.split(separator: "\n").filter { $0.hasPrefix("iapdesk_receiver_notifications_stored_total{") }
                .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }.reduce(0, +)
            print("# /metrics counted \(Int(stored)) stored of \(pairs * count) sent to the receiver with metrics on")
        }
        func listed(_ values: [Double]) -> String { values.map { String(format: "%.0f", $0) }.joined(separator: " ") }
        Self.figure("receiver_metrics_on_c\(concurrency)", Self.percentile(rates["on"] ?? [], 0.5), "notifications/s (median of \(pairs) rounds of \(count): \(listed(rates["on"] ?? [])))")
        Self.figure(
            "receiver_metrics_off_c\(concurrency)", Self.percentile(rates["off"] ?? [], 0.5),
            "notifications/s (median of \(pairs) rounds of \(count): \(listed(rates["off"] ?? [])); \(wrong) not 200 in all)")
        let ratio = Self.percentile(ratios, 0.5)
        Self.figure(
            "receiver_metrics_on_over_off", 100 * ratio,
            "% (limit 95 %: \(ratio >= 0.95 ? "within" : "OVER"); median of the pairs' ratios \(ratios.map { String(format: "%.2f", $0) }.joined(separator: " ")))")
        let cpuOn = Self.percentile(cpu["on"] ?? [], 0.5)
        let cpuOff = Self.percentile(cpu["off"] ?? [], 0.5)
        Self.figure("receiver_metrics_cpu_on_over_off", cpuOff > 0 ? 100 * cpuOn / cpuOff : 0, "% (CPU per notification, medians \(Int(cpuOn)) and \(Int(cpuOff)) µs)")
        for (_, receiver, store) in receivers {
            await receiver.stop()
            try await store.close()
        }
        await demo.stop()
    }
}
