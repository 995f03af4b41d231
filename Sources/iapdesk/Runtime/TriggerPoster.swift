import AppStoreServerAPI
import Foundation
import WebhookReceiver

/// POSTs a triggered notification as Apple does and keeps the answer: status, milliseconds and
/// body, with the result texts of listen's forwarder and `replay` ("HTTP 200", "timed out after 10 s",
/// "not delivered: cannot connect").
struct TriggerPoster {
    let target: URL
    let timeout: TimeInterval
    /// The process's shared HTTP client.
    var transport: any HTTPTransport = AsyncHTTPClientTransport()

    struct Answer: Sendable {
        var summary: String
        var status: Int?
        var milliseconds: Double
        var body: Data
        var accepted: Bool { (200...299).contains(status ?? 0) }
    }

    func post(_ body: Data, userAgent: String = "iapdesk trigger") async -> Answer {
        let request = HTTPRequest(
            method: "POST", url: target, headers: [("Content-Type", "application/json"), ("User-Agent", userAgent)], body: body,
            timeout: timeout)
        let start = ContinuousClock.now
        func elapsed() -> Double {
            let duration = ContinuousClock.now - start
            return Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        }
        do {
            // The transport ends the request, answer and body, at the timeout.
            let response = try await transport.send(request)
            return Answer(summary: "HTTP \(response.status)", status: response.status, milliseconds: elapsed(), body: response.body)
        } catch let failure as TransportFailure where failure.kind == .timedOut {
            return Answer(summary: "timed out after \(String(format: "%g", timeout)) s", status: nil, milliseconds: elapsed(), body: Data())
        } catch {
            return Answer(summary: "not delivered: \(Forwarder.describe(error))", status: nil, milliseconds: elapsed(), body: Data())
        }
    }

    /// The answer's body for people: text cut to `limit` characters, or its size when it is not text.
    static func shown(_ body: Data, limit: Int = 500) -> (text: String, truncated: Bool) {
        guard !body.isEmpty else { return ("(empty)", false) }
        guard let text = String(data: body, encoding: .utf8) else { return ("(\(body.count) bytes, not text)", false) }
        let clean = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard clean.count > limit else { return (clean, false) }
        return (String(clean.prefix(limit)) + "… (\(body.count) bytes)", true)
    }
}
