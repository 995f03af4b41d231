import AppStoreServerAPI
import DemoServer
import DeskStore
import Foundation
import Testing
import WebhookReceiver

/// /metrics in Prometheus' text format, read back with a parser of that format, after requests of
/// known outcomes; /healthz's last arrival; and the metrics on an address of their own.
@Suite struct ReceiverMetricsTests {
    @Test func theCountersSayWhatWasSent() async throws {
        let bench = try await ReceiverBench.start(configure: {
            // Nothing answers there: every forward fails, and is counted so.
            $0.forward = ForwardConfiguration(url: URL(string: "http://127.0.0.1:9/nowhere")!, timeout: 5)
        })
        let notifications = bench.notifications
        let uuid = UUID().uuidString.lowercased()
        let first = Notifications.body(try notifications.payload(uuid: uuid))
        #expect(try await bench.post(first).status == 200)
        #expect(try await bench.post(Notifications.body(try notifications.payload(type: .refund))).status == 200)
        #expect(try await bench.post(first).status == 200)  // a repeat
        #expect(try await bench.post(Notifications.body(Notifications.tampered(try notifications.payload()))).status == 400)
        #expect(try await bench.post(Data("not json".utf8)).status == 400)
        #expect(try await bench.post(Data("not json".utf8)).status == 400)  // recognised by its hash, still counted

        let scrape = try await Exposition.scrape(bench.receiver.metricsURL!)
        #expect(scrape.value("iapdesk_receiver_notifications_received_total") == 6)
        #expect(scrape.value("iapdesk_receiver_notifications_stored_total", ["environment": "Production", "type": "DID_RENEW"]) == 1)
        #expect(scrape.value("iapdesk_receiver_notifications_stored_total", ["environment": "Production", "type": "REFUND"]) == 1)
        #expect(scrape.sum("iapdesk_receiver_notifications_stored_total") == 2)
        #expect(scrape.value("iapdesk_receiver_notifications_duplicate_total", ["environment": "Production", "type": "DID_RENEW"]) == 1)
        #expect(scrape.sum("iapdesk_receiver_notifications_duplicate_total") == 1)
        #expect(scrape.value("iapdesk_receiver_notifications_refused_total", ["reason": "invalid-signature"]) == 1)
        #expect(scrape.value("iapdesk_receiver_notifications_refused_total", ["reason": "not-json"]) == 2)
        #expect(scrape.sum("iapdesk_receiver_notifications_refused_total") == 3)
        #expect(scrape.value("iapdesk_receiver_forwards_total", ["outcome": "failed"]) == 3)
        #expect(scrape.value("iapdesk_receiver_forwards_total", ["outcome": "delivered"]) == 0)
        #expect(scrape.value("iapdesk_receiver_store_errors_total", ["write": "notification"]) == 0)
        // Every notification that verified was timed, and every write that went through.
        #expect(scrape.value("iapdesk_receiver_verification_seconds_count") == 3)
        #expect(scrape.value("iapdesk_receiver_store_commit_seconds_count") == 3)
        #expect(scrape.value("iapdesk_receiver_store_commit_seconds_bucket", ["le": "+Inf"]) == 3)
        #expect((scrape.value("iapdesk_receiver_store_commit_seconds_sum") ?? 0) > 0)
        #expect(scrape.value("iapdesk_receiver_store_up") == 1)
        #expect(scrape.value("iapdesk_receiver_requests_in_flight") == 0)
        // The counters that were there before, with their types and help.
        #expect(scrape.value("iapdesk_quarantine_kept_total") == 2)
        #expect(scrape.value("iapdesk_quarantine_repeats_total") == 1)
        #expect(scrape.value("iapdesk_receiver_refused_recognised_total") == 1)
        #expect(scrape.types["iapdesk_receiver_notifications_stored_total"] == "counter")
        #expect(scrape.types["iapdesk_receiver_store_commit_seconds"] == "histogram")
        #expect(scrape.types["iapdesk_receiver_open_connections"] == "gauge")
        for name in scrape.types.keys { #expect(scrape.help[name]?.isEmpty == false, "\(name) has no HELP") }
        await bench.stop()
    }

    @Test func healthzTellsTheLastStoredArrival() async throws {
        let bench = try await ReceiverBench.start()
        let before = try JSONSerialization.jsonObject(with: try await bench.post(Data(), path: "/healthz", method: "GET").body) as? [String: Any]
        #expect(before?["store"] as? String == "writable")
        #expect(before?["lastStoredSecondsAgo"] is NSNull)
        #expect(try await bench.post(Notifications.body(try bench.notifications.payload())).status == 200)
        let answer = try await bench.post(Data(), path: "/healthz", method: "GET")
        #expect(answer.status == 200)
        let after = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
        #expect(after?["store"] as? String == "writable")
        #expect((after?["lastStoredSecondsAgo"] as? Int).map { $0 >= 0 } == true)
        await bench.stop()
    }

    @Test func aMetricsAddressServesThemAndThePublicAddressDoesNot() async throws {
        let bench = try await ReceiverBench.start(configure: { $0.metricsAddress = ("127.0.0.1", 0) })
        #expect(try await bench.post(Notifications.body(try bench.notifications.payload())).status == 200)
        let url = try #require(bench.receiver.metricsURL)
        #expect(url.port == bench.receiver.metricsPort && url.port != bench.receiver.port)
        let scrape = try await Exposition.scrape(url)
        #expect(scrape.sum("iapdesk_receiver_notifications_stored_total") == 1)
        #expect(try await bench.post(Data(), path: "/metrics", method: "GET").status == 404)
        // /healthz is on both: a load balancer checks the public address.
        #expect(try await bench.post(Data(), path: "/healthz", method: "GET").status == 200)
        let privateHealth = try await Poster.post(Data(), to: URL(string: "http://127.0.0.1:\(url.port!)/healthz")!, method: "GET")
        #expect(privateHealth.status == 200)
        // Notifications are not received there.
        let post = try await Poster.post(Notifications.body(try bench.notifications.payload()), to: URL(string: "http://127.0.0.1:\(url.port!)\(bench.receiver.configuration.path)")!)
        #expect(post.status == 404)
        await bench.stop()
    }

    @Test func withoutAPathNorAnAddressNothingIsServed() async throws {
        let bench = try await ReceiverBench.start(configure: { $0.metricsPath = nil })
        #expect(bench.receiver.metricsURL == nil)
        #expect(try await bench.post(Notifications.body(try bench.notifications.payload())).status == 200)
        #expect(try await bench.post(Data(), path: "/metrics", method: "GET").status == 404)
        await bench.stop()
    }

    @Test func theParserReadsTheTextFormat() throws {
        let text = """
            # HELP a_total What a counts.
            # TYPE a_total counter
            a_total{reason="x\\"y",type="T"} 3
            a_total{reason="z",type="T"} 4.5
            # TYPE b gauge
            b 1e3

            """
        let parsed = try Exposition(text)
        #expect(parsed.value("a_total", ["reason": "x\"y", "type": "T"]) == 3)
        #expect(parsed.sum("a_total") == 7.5)
        #expect(parsed.value("b") == 1000)
        #expect(parsed.help["a_total"] == "What a counts.")
        #expect(parsed.types == ["a_total": "counter", "b": "gauge"])
    }
}

/// Prometheus' text exposition format (0.0.4), as far as a test needs it: samples with their
/// labels, and each family's TYPE and HELP.
struct Exposition {
    struct Sample {
        let name: String
        let labels: [String: String]
        let value: Double
    }

    struct Malformed: Error, CustomStringConvertible {
        let line: String
        var description: String { "not a sample line: \(line)" }
    }

    var samples: [Sample] = []
    var types: [String: String] = [:]
    var help: [String: String] = [:]

    static func scrape(_ url: URL) async throws -> Exposition {
        let answer = try await Poster.post(Data(), to: url, method: "GET")
        guard answer.status == 200 else { throw Malformed(line: "HTTP \(answer.status)") }
        return try Exposition(String(decoding: answer.body, as: UTF8.self))
    }

    init(_ text: String) throws {
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("#") {
                let words = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: true)
                guard words.count >= 3 else { continue }
                if words[1] == "TYPE" { types[String(words[2])] = words.count > 3 ? String(words[3]) : "" }
                if words[1] == "HELP" { help[String(words[2])] = words.count > 3 ? String(words[3]) : "" }
                continue
            }
            samples.append(try Self.sample(Substring(line)))
        }
    }

    static func sample(_ line: Substring) throws -> Sample {
        var rest = line[...]
        let nameEnd = rest.firstIndex { $0 == "{" || $0 == " " } ?? rest.endIndex
        let name = String(rest[..<nameEnd])
        rest = rest[nameEnd...]
        var labels: [String: String] = [:]
        if rest.first == "{" {
            rest = rest.dropFirst()
            while rest.first != "}" {
                guard let equals = rest.firstIndex(of: "="), rest[rest.index(after: equals)...].first == "\"" else { throw Malformed(line: String(line)) }
                let key = String(rest[..<equals]).trimmingCharacters(in: .whitespaces)
                rest = rest[rest.index(equals, offsetBy: 2)...]
                var value = ""
                while let character = rest.first, character != "\"" {
                    rest = rest.dropFirst()
                    if character == "\\", let escaped = rest.first {
                        rest = rest.dropFirst()
                        value.append(escaped == "n" ? "\n" : escaped)
                    } else {
                        value.append(character)
                    }
                }
                guard rest.first == "\"" else { throw Malformed(line: String(line)) }
                rest = rest.dropFirst()
                labels[key] = value
                if rest.first == "," { rest = rest.dropFirst() }
                guard !rest.isEmpty else { throw Malformed(line: String(line)) }
            }
            rest = rest.dropFirst()
        }
        let fields = rest.split(separator: " ")
        guard let valueText = fields.first, let value = Double(valueText.replacingOccurrences(of: "Inf", with: "inf")) else {
            throw Malformed(line: String(line))
        }
        return Sample(name: name, labels: labels, value: value)
    }

    /// The sample with exactly these labels (nil when there is none).
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    /// Every series of the name, added up.
    func sum(_ name: String) -> Double {
        samples.filter { $0.name == name }.reduce(0) { $0 + $1.value }
    }
}
