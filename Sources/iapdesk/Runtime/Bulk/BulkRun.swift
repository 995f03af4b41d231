import AppStoreServerAPI
import ArgumentParser
import DeskCore
import Foundation
import Synchronization

/// A read command (status, lookup, history, refunds, transaction) for every ID of a file, in one
/// process: one session and one request token signer for all, requests paced at a share of Apple's
/// per-endpoint limit (so none is answered 429 and the app's other clients keep their room),
/// records in input order, a progress line, Ctrl-C that finishes what was asked and stops, and
/// `--resume` that asks only for what an earlier run's output does not hold.
struct BulkRun {
    /// The command's name, for messages.
    let command: String
    /// The endpoint an ID's requests go to (the first ID's is shown with its limit).
    let endpoint: @Sendable (String) -> String
    let options: BulkOptions
    let global: GlobalOptions
    let columns: [String]
    let validate: @Sendable (String) throws -> Void
    /// The command's work for one ID, exactly as the command does it for one ID on the command line.
    let read: @Sendable (String, Session, Printer) async throws -> Void
    /// Said once the session is open, before any ID (a note the command would otherwise print per ID).
    var sessionOpened: (@Sendable (Session) -> Void)? = nil

    /// True inside a bulk run's work for one ID: what a single command does on its own (a progress
    /// line, taking Ctrl-C) is the run's to do.
    @TaskLocal static var isActive = false

    func run() async throws {
        try await runReporting {
            guard let from = options.from else { return }
            let input: BulkInput
            do {
                input = try BulkInput.read(from, column: options.column)
            } catch let failure as BulkInput.Failure {
                throw CLIError(failure.description, status: .usage)
            }
            guard !input.items.isEmpty else {
                let skipped = input.skipped > 0 ? " (\(input.skipped) line\(input.skipped == 1 ? "" : "s") skipped: blank, # comments or a header)" : ""
                throw CLIError("\(from == "-" ? "Standard input" : from) holds no IDs\(skipped).", hint: "One ID per line, or a CSV file with --column NAME.", status: .usage)
            }
            let opened: (output: BulkOutput, done: EarlierRecords)
            do {
                opened = try BulkOutput.open(
                    path: options.output, format: options.bulkFormat, columns: columns, resume: options.resume, input: input)
            } catch let failure as BulkOutput.Failure {
                throw CLIError(failure.description, status: .usage)
            }
            let output = opened.output
            defer { output.close() }
            let pending = input.items.filter { !opened.done.lines.contains($0.line) }
            let session = try await Session.open(global)
            sessionOpened?(session)
            let limiter = RequestRateLimiter(pacedShare: Double(options.rateShare) / 100)
            let report: BulkReport
            do {
                let endpoint = self.endpoint(pending.first { $0.problem == nil }?.id ?? "")
                report = await work(
                    pending, endpoint: endpoint, session: session.limited(by: limiter), limiter: limiter, output: output, earlier: opened.done)
            }
            await session.close()
            report.summary(input: input, source: from, output: options.output, session: session, global: global)
            if let status = report.exitStatus { throw ExitCode(status) }
        }
    }

    /// Asks for each distinct ID once (a line repeating an ID gets the same answer), at most a
    /// second's worth of requests in flight, and writes each line's record as soon as every line
    /// before it has one.
    private func work(
        _ items: [BulkInput.Item], endpoint: String, session: Session, limiter: RequestRateLimiter, output: BulkOutput, earlier: EarlierRecords
    ) async -> BulkReport {
        var distinct: [String] = []
        var slot: [String: Int] = [:]
        for item in items where item.problem == nil && slot[item.id] == nil {
            slot[item.id] = distinct.count
            distinct.append(item.id)
        }
        let tally = BulkTally(total: distinct.count)
        let pace = limiter.pace(for: endpoint, in: session.environment)
        let limit = limiter.limit(for: endpoint, in: session.environment)
        let command = self.command
        let progress = ProgressLine(noun: "IDs", describe: { elapsed in
            tally.line(command: command, elapsed: elapsed, limit: limit, endpoint: endpoint, rateLimited: limiter.rateLimitedAnswers)
        })
        progress.startTicking()
        let stop = Mutex(false)
        let previous = InterruptionSignal.shared.route { stop.withLock { $0 = true } }
        defer { InterruptionSignal.shared.route(previous) }
        let inFlightCap = max(2, Int(pace.rounded(.up)))
        let (validate, read, timeout) = (self.validate, self.read, session.timeout)
        var answers: [Int: BulkAnswer] = [:]
        var written = 0
        var fatal: BulkAnswer.Failure?
        // Outcomes per line written (a repeated ID's answer counts on each of its lines).
        let lineTally = BulkTally(total: items.count)
        var rowsWithoutID = 0
        // Each line's record as soon as every line before it has one; a row without an ID has its record at once.
        func flush() {
            while written < items.count {
                let item = items[written]
                let answer: BulkAnswer
                if let problem = item.problem {
                    answer = BulkAnswer(failure: BulkAnswer.Failure(message: problem, status: .usage))
                    rowsWithoutID += 1
                } else if let done = answers[slot[item.id]!] {
                    answer = done
                } else {
                    return
                }
                output.write(item, answer)
                lineTally.add(answer)
                written += 1
            }
        }
        flush()
        await withTaskGroup(of: (Int, BulkAnswer).self) { group in
            var next = 0
            var inFlight = 0
            while true {
                while inFlight < inFlightCap, next < distinct.count, fatal == nil, !output.closed, !stop.withLock({ $0 }) {
                    let (index, id) = (next, distinct[next])
                    group.addTask {
                        let capture = DocumentCapture()
                        do {
                            try validate(id)
                            try await BulkRun.$isActive.withValue(true) {
                                try await Deadline.$current.withValue(Deadline(seconds: timeout)) {
                                    try await read(id, session, Printer(json: true, capture: capture))
                                }
                            }
                            return (index, BulkAnswer(document: capture.last))
                        } catch {
                            return (index, BulkAnswer(document: capture.last, failure: BulkAnswer.Failure(error)))
                        }
                    }
                    next += 1
                    inFlight += 1
                }
                guard inFlight > 0, let (index, answer) = await group.next() else { break }
                inFlight -= 1
                answers[index] = answer
                tally.add(answer)
                // A refused token or a broken profile fails every ID alike: stop instead of asking the rest.
                if let failure = answer.failure, [.unauthorized, .configuration].contains(failure.status) { fatal = failure }
                flush()
            }
        }
        progress.finish()
        return BulkReport(
            distinctAsked: tally.snapshot.answered, lines: lineTally.snapshot, rowsWithoutID: rowsWithoutID, earlier: earlier, written: written, pendingLines: items.count,
            stopped: stop.withLock { $0 }, outputClosed: output.closed, writeFailure: output.writeFailure, fatal: fatal,
            rateLimited: limiter.rateLimitedAnswers, limit: limit, pace: pace, endpoint: endpoint, command: command)
    }
}

/// Counts of the answers so far, for the progress line and the summary.
final class BulkTally: Sendable {
    struct Counts: Sendable {
        var total = 0
        var answered = 0
        var failed: [String: Int] = [:]
        var firstFailure: ExitStatus?
    }

    private let counts: Mutex<Counts>

    init(total: Int) { counts = Mutex(Counts(total: total)) }

    func add(_ answer: BulkAnswer) {
        counts.withLock { counts in
            counts.answered += 1
            if let failure = answer.failure {
                counts.failed[failure.outcome, default: 0] += 1
                if failure.status != .notFound, counts.firstFailure == nil { counts.firstFailure = failure.status }
            }
        }
    }

    var snapshot: Counts { counts.withLock { $0 } }

    func line(command: String, elapsed: TimeInterval, limit: Int, endpoint: String, rateLimited: Int) -> String {
        let counts = snapshot
        let rate = elapsed > 0 ? Double(counts.answered) / elapsed : 0
        let left = rate > 0 ? Double(counts.total - counts.answered) / rate : 0
        let failed = counts.failed.sorted { $0.key < $1.key }.map { ", \($0.value) \($0.key)" }.joined()
        return "\(command): \(counts.answered) of \(counts.total) IDs, \(BulkReport.rate(rate))/s (limit \(limit)/s), about \(DisplayFormat.duration(seconds: left)) left"
            + failed + (rateLimited > 0 ? ", \(rateLimited) × 429" : "") + "; Ctrl-C stops"
    }
}

/// What a bulk run did, said on standard error at the end, and its exit code.
struct BulkReport {
    /// Distinct IDs this run asked Apple (or the store) about.
    let distinctAsked: Int
    /// Outcomes of the lines this run wrote.
    let lines: BulkTally.Counts
    /// CSV rows that held no ID: each has a record saying so, none was asked.
    let rowsWithoutID: Int
    /// What the output held from an earlier run (`--resume`).
    let earlier: EarlierRecords
    let written: Int
    let pendingLines: Int
    let stopped: Bool
    /// Standard output was closed by its reader (`| head`), or the file could not be written.
    let outputClosed: Bool
    let writeFailure: String?
    let fatal: BulkAnswer.Failure?
    let rateLimited: Int
    let limit: Int
    let pace: Double
    let endpoint: String
    let command: String

    static func rate(_ value: Double) -> String { String(format: value < 10 ? "%.1f" : "%.0f", value) }

    /// Failures by kind over the whole output: this run's answers, rows without an ID, and the
    /// records an earlier run left in the file.
    var failedByKind: [String: Int] {
        lines.failed.merging(earlier.failed, uniquingKeysWith: +)
    }

    /// nil when every line of the output is answered; 2 when the only failures are IDs Apple does
    /// not know; otherwise the first other failure's code, 130 after Ctrl-C, 1 when the file could
    /// not be written. A resumed run counts the records it found as well as its own.
    var exitStatus: ExitStatus? {
        if let fatal { return fatal.status }
        if writeFailure != nil { return .failure }
        if stopped && !outputClosed && written < pendingLines { return .interrupted }
        if let first = lines.firstFailure ?? earlier.firstFailure { return first }
        if failedByKind["not-found", default: 0] > 0 { return .notFound }
        return nil
    }

    func summary(input: BulkInput, source: String, output: String?, session: Session, global: GlobalOptions) {
        var said: [String] = []
        let skipped = input.skipped > 0 ? " (\(input.skipped) skipped: blank, # comments or a header)" : ""
        let before = earlier.lines.count
        let earlierText = before > 0 ? ", \(before) already in \(output ?? "the output") from an earlier run" : ""
        said.append("\(command): \(input.items.count) line\(input.items.count == 1 ? "" : "s") from \(source == "-" ? "standard input" : source)\(skipped)\(earlierText); \(distinctAsked) distinct ID\(distinctAsked == 1 ? "" : "s") asked in \(session.environmentLabel).")
        let failed = failedByKind.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
        let ok = self.lines.answered - self.lines.failed.values.reduce(0, +) + earlier.ok
        let scope = before > 0 ? "Lines in the whole file" : "Lines"
        said.append("\(scope): \(ok) ok\(failed.isEmpty ? "" : ", " + failed.joined(separator: ", ")); \(rateLimited) answered 429 (\(endpoint): \(limit) per second, paced at \(Self.rate(pace)) per second).")
        if rowsWithoutID > 0 {
            said.append("\(rowsWithoutID) row\(rowsWithoutID == 1 ? "" : "s") held no ID: each has a record saying so (outcome invalid).")
        }
        if let fatal {
            said.append("Stopped at the first answer that fails every ID alike: \(fatal.message)")
        } else if let writeFailure {
            said.append("Stopped after \(written) of \(pendingLines) lines: \(writeFailure).")
        } else if outputClosed && written < pendingLines {
            said.append("Standard output was closed after \(written) of \(pendingLines) lines: stopped asking.")
        } else if stopped && written < pendingLines {
            let resume = output.map { "run the same command with --resume to ask for the \(pendingLines - written) left (\($0) holds the answers so far)" }
                ?? "next time add --output FILE, and --resume then continues where it stopped"
            said.append("Stopped by Ctrl-C after \(written) of \(pendingLines) lines: \(resume).")
        }
        if let output, output != "-" { said.append("Written to \(output).") }
        StandardStreams.error(said.joined(separator: "\n") + "\n")
    }
}
