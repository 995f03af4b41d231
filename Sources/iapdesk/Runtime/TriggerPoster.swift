import Foundation
import WebhookReceiver
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// POSTs a triggered notification as Apple does and keeps the answer: status, milliseconds and
/// body, with the result texts of listen's forwarder and `replay` ("HTTP 200", "timed out after 10 s",
/// "not delivered: cannot connect").
struct TriggerPoster {
    let target: URL
    let timeout: TimeInterval

    struct Answer: Sendable {
        var summary: String
        var status: Int?
        var milliseconds: Double
        var body: Data
        var accepted: Bool { (200...299).contains(status ?? 0) }
    }

    func post(_ body: Data, userAgent: String = "iapdesk trigger") async -> Answer {
        var request = URLRequest(url: target, timeoutInterval: timeout.rounded(.up) + 1)
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(userAgent, forHTTPHeaderField: "User-Agent")
        let configuration = URLSessionConfiguration.ephemeral
        // The deadline is kept below; URLSession's own, in whole seconds on Linux, only backs it up.
        configuration.timeoutIntervalForRequest = timeout.rounded(.up) + 1
        configuration.timeoutIntervalForResource = timeout.rounded(.up) + 1
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let start = ContinuousClock.now
        let timeout = self.timeout
        func elapsed() -> Double {
            let duration = ContinuousClock.now - start
            return Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        }
        do {
            // The outer nil is the deadline.
            let answer: (Data, URLResponse)? = try await withThrowingTaskGroup(of: (Data, URLResponse)?.self) { [request] group in
                group.addTask { try await session.data(for: request) }
                group.addTask {
                    try await Task.sleep(for: .milliseconds(Int64(timeout * 1000)))
                    return nil
                }
                let first = try await group.next() ?? nil
                group.cancelAll()
                return first
            }
            guard let (data, response) = answer else { throw URLError(.timedOut) }
            guard let http = response as? HTTPURLResponse else {
                return Answer(summary: "not an HTTP answer", status: nil, milliseconds: elapsed(), body: data)
            }
            return Answer(summary: "HTTP \(http.statusCode)", status: http.statusCode, milliseconds: elapsed(), body: data)
        } catch let error as URLError where error.code == .timedOut {
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
