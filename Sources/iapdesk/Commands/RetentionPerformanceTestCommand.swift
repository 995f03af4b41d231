import AppStoreServerAPI
import ArgumentParser
import DeskCore
import Foundation

struct RetentionPerformanceTestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "performance-test", abstract: "Test the Sandbox realtime URL under load, and read the result.",
        discussion: """
            Apple sends many signed real-time requests to the Sandbox realtime URL at once and measures the answers. \
            Tests run in Sandbox only (a Production profile sends them to Sandbox); a passed one lets Production take \
            a realtime URL.
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
            let started = try await RetentionWrite.send(
                Endpoints.initiatePerformanceTest(request: PerformanceTestRequest(originalTransactionId: originalTransactionId)),
                subject: "performance test of the Sandbox realtime URL", session: session, yes: write.yes, client: sandbox)
            printer.emit(PerformanceTestStartOutput(requestId: started.requestId, config: started.config))
            var fields = FieldList()
            fields.add("Request ID", started.requestId)
            if let config = started.config {
                fields.add("Load", "\(config.totalRequests.map(String.init) ?? "?") requests, \(config.maxConcurrentRequests.map(String.init) ?? "?") at a time")
                fields.add("Passes with", "\(config.successRateThreshold.map(String.init) ?? "?") % answered within \(config.responseTimeThreshold.map(String.init) ?? "?") ms")
            }
            printer.text(fields.render())
            printer.text("Read the result with: iapdesk retention performance-test result \(started.requestId ?? "REQUEST_ID")")
        }
    }
}

struct PerformanceTestResultCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "result", abstract: "The result of a performance test.")

    @Argument(help: "The request ID the test started with.") var requestId: String
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await withSession(global) { session, printer in
            let answer = try await session.client.getPerformanceTestResults(requestId: requestId)
            printer.emit(PerformanceTestResultOutput(requestId: requestId, answer))
            var fields = FieldList()
            fields.add("Result", answer.result?.label ?? "-")
            fields.add("Target", answer.target)
            fields.add("Success rate", answer.successRate.map { "\($0) %" + (answer.config?.successRateThreshold.map { " (\($0) % needed)" } ?? "") })
            fields.add("Pending", answer.numPending.map(String.init))
            if let times = answer.responseTimes {
                let parts = [("average", times.average), ("p50", times.p50), ("p90", times.p90), ("p95", times.p95), ("p99", times.p99)]
                    .compactMap { name, value in value.map { "\(name) \($0) ms" } }
                fields.add("Response times", parts.joined(separator: ", "))
            }
            fields.add("Failures", answer.failureCounts.map { "\($0.count) \($0.result.label.lowercased())" }.joined(separator: ", "))
            printer.text(fields.render())
        }
    }
}
