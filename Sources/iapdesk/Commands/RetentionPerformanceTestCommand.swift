import AppStoreServerAPI
import ArgumentParser
import DemoServer
import DeskCore
import Foundation

struct RetentionPerformanceTestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "performance-test", abstract: "Test the Sandbox realtime URL under load, and read the result.",
        discussion: """
            Apple sends many signed real-time requests to the Sandbox realtime URL at once and measures the answers. \
            Tests run in Sandbox only (a Production profile sends them to Sandbox); a passed one lets Production take \
            a realtime URL. `result` exits 11 when the test failed.
            """,
        subcommands: [PerformanceTestStartCommand.self, PerformanceTestResultCommand.self])
}

struct PerformanceTestStartCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "start", abstract: "Start a performance test.")

    @Argument(help: "The original transaction ID of a subscription bought in Sandbox.") var originalTransactionId: String
    @OptionGroup var write: WriteOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws { try IDRules.transactionId(originalTransactionId, "ORIGINAL_TRANSACTION_ID") }

    func run() async throws {
        try await withSession(global) { session, printer in
            guard let sandbox = session.client.client(for: .sandbox) else {
                throw CLIError("Performance tests run in Sandbox, and this profile reaches \(session.environmentLabel) only.", status: .configuration)
            }
            let target = try await Self.sandboxRealtimeURL(sandbox)
            let started = try await RetentionWrite.send(
                Endpoints.initiatePerformanceTest(request: PerformanceTestRequest(originalTransactionId: originalTransactionId)),
                subject: "performance test of the Sandbox realtime URL", session: session, yes: write.yes, client: sandbox)
            printer.emit(PerformanceTestStartOutput(requestId: started.requestId, target: target, config: started.config))
            var fields = FieldList()
            fields.add("Request ID", started.requestId)
            fields.add("Target", PerformanceTestTarget.label(target, session: session))
            if let config = started.config {
                fields.add("Load", "\(config.totalRequests.map(String.init) ?? "?") requests, \(config.maxConcurrentRequests.map(String.init) ?? "?") at a time")
                fields.add("Passes with", "\(config.successRateThreshold.map(String.init) ?? "?") % answered within \(config.responseTimeThreshold.map(String.init) ?? "?") ms")
            }
            printer.text(fields.render())
            printer.text("Read the result with: iapdesk retention performance-test result \(started.requestId ?? "REQUEST_ID")")
        }
    }

    /// The Sandbox realtime URL the test will call: without one Apple refuses the test with a bare
    /// InvalidPerformanceTestRequestError, so its absence is said before anything is sent.
    static func sandboxRealtimeURL(_ sandbox: AppStoreServerClient) async throws -> String? {
        do {
            return try await sandbox.getRealtimeURL().realtimeURL
        } catch where error.serverCode == .realtimeUrlNotFound {
            throw CLIError(
                "Not sent: no realtime URL is set in Sandbox, and a performance test calls it.",
                hint: "Set it first: iapdesk retention realtime-url set URL --environment sandbox", status: .configuration)
        }
    }
}

/// The URL a test calls, said as what it is when it is the demo's own endpoint.
enum PerformanceTestTarget {
    static func label(_ target: String?, session: Session) -> String? {
        guard let target else { return nil }
        guard session.demo != nil, DemoServer.isOwnRealtimeEndpoint(target) else { return target }
        return "\(target) (the demo's own endpoint, on this machine)"
    }
}

struct PerformanceTestResultCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "result", abstract: "The result of a performance test.")

    @Argument(help: "The request ID the test started with (a UUID).") var requestId: String
    @OptionGroup var global: GlobalOptions

    func validate() throws { _ = try RetentionIdentifier.parse(requestId, "REQUEST_ID") }

    func run() async throws {
        try await withSession(global) { session, printer in
            let answer = try await session.client.getPerformanceTestResults(requestId: requestId)
            printer.emit(PerformanceTestResultOutput(requestId: requestId, answer))
            var fields = FieldList()
            fields.add("Result", answer.result?.label ?? "-")
            fields.add("Target", PerformanceTestTarget.label(answer.target, session: session))
            fields.add("Success rate", answer.successRate.map { "\($0) %" + (answer.config?.successRateThreshold.map { " (\($0) % needed)" } ?? "") })
            fields.add("Pending", answer.numPending.map(String.init))
            if let times = answer.responseTimes {
                let parts = [("average", times.average), ("p50", times.p50), ("p90", times.p90), ("p95", times.p95), ("p99", times.p99)]
                    .compactMap { name, value in value.map { "\(name) \($0) ms" } }
                fields.add("Response times", parts.joined(separator: ", "))
            }
            fields.add("Failures", answer.failureCounts.map { "\($0.count) \($0.result.label.lowercased())" }.joined(separator: ", "))
            printer.text(fields.render())
            if answer.result == .fail {
                throw CLIError(
                    "The performance test failed: \(answer.successRate.map { "\($0) %" } ?? "no request") answered in time, \(answer.config?.successRateThreshold.map { "\($0) %" } ?? "more") needed.",
                    hint: "Make the Sandbox realtime URL answer faster or more reliably (the failures above say how it failed), then start another test.",
                    status: .testFailed)
            }
        }
    }
}
