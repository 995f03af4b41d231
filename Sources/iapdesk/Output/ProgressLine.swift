import Foundation
import Synchronization

/// Progress of a long fetch on standard error, so standard output stays clean for pipes. Quick
/// fetches show nothing. On a terminal one line is rewritten in place and erased at the end;
/// elsewhere (a log file) a plain line appears after a couple of seconds and then now and then.
final class ProgressLine: Sendable {
    struct Counts: Sendable, Equatable {
        var pages = 0
        var records = 0
    }

    private struct State {
        var counts = Counts()
        var lastShown: Date?
        var finished = false
    }

    let noun: String
    let inPlace: Bool
    let start: Date
    private let state = Mutex(State())
    private let write: @Sendable (String) -> Void
    /// The line's words, when not a listing's pages and records.
    private let describe: (@Sendable (TimeInterval) -> String)?

    /// Seconds before the first line, and between lines.
    var firstAfter: TimeInterval { inPlace ? 1 : 2 }
    var every: TimeInterval { inPlace ? 0.25 : 10 }

    init(
        noun: String, inPlace: Bool = isatty(STDERR_FILENO) == 1, start: Date = Date(),
        write: @escaping @Sendable (String) -> Void = { StandardStreams.error($0) },
        describe: (@Sendable (TimeInterval) -> String)? = nil
    ) {
        self.describe = describe
        self.noun = noun
        self.inPlace = inPlace
        self.start = start
        self.write = write
    }

    /// Shows the line from time to time until `finish`.
    func startTicking() {
        Task { [weak self] in
            while let self, !self.isFinished {
                self.tick(now: Date())
                try? await Task.sleep(nanoseconds: 250_000_000)
            }
        }
    }

    func update(pages: Int, records: Int) {
        state.withLock { $0.counts = Counts(pages: pages, records: records) }
    }

    /// Writes the line if it is time to.
    func tick(now: Date) {
        let text: String? = state.withLock { state in
            guard !state.finished, now.timeIntervalSince(start) >= firstAfter else { return nil }
            if let last = state.lastShown, now.timeIntervalSince(last) < every { return nil }
            state.lastShown = now
            let elapsed = now.timeIntervalSince(start)
            let line = describe?(elapsed) ?? Self.text(noun: noun, counts: state.counts, elapsed: elapsed)
            return inPlace ? "\r\u{1B}[2K" + line : line + "\n"
        }
        if let text { write(text) }
    }

    /// Stops; on a terminal the line is erased so what follows starts clean.
    func finish() {
        let erase = state.withLock { state -> Bool in
            defer { state.finished = true }
            return !state.finished && state.lastShown != nil && inPlace
        }
        if erase { write("\r\u{1B}[2K") }
    }

    private var isFinished: Bool { state.withLock { $0.finished } }

    static func text(noun: String, counts: Counts, elapsed: TimeInterval) -> String {
        let pages = counts.pages == 1 ? "1 page" : "\(counts.pages) pages"
        return "fetching: \(pages), \(counts.records) \(noun) so far (\(Int(elapsed)) s); Ctrl-C stops and shows them"
    }
}
