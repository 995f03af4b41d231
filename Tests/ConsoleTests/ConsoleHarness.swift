import AppStoreServerAPI
@testable import Console
import DemoServer
@testable import DeskCore
import DeskStore
import Foundation
import Synchronization
import TerminalUI

/// Drives the console without a terminal: keys go through the reducer, effects run against a demo
/// server, answers come back through the reducer, and screens render into a headless backend.
final class ConsoleHarness: @unchecked Sendable {
    /// The console's own loop, run by the test instead of a terminal.
    let program: ConsoleProgram
    var state: ConsoleState {
        get { program.state }
        set { program.state = newValue }
    }
    let server: DemoServer
    let runner: EffectRunner
    private let inbox: ConsoleInbox
    private let performed = EffectLog()
    let theme: Theme
    let writes: WriteContext

    static func start(
        readOnly: Bool = false, ledgerPath: String? = nil, faults: DemoFaults = DemoFaults(), received: ReceivedNotifications? = nil,
        notes: (any NoteStore)? = nil, retention: DemoRetentionSettings = DemoRetentionSettings(), callTimeout: TimeInterval? = nil
    ) async throws -> ConsoleHarness {
        var configuration = DemoServer.Configuration()
        configuration.faults = faults
        configuration.retention = retention
        configuration.anchor = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 60).rounded(.down) * 60)
        let server = try await DemoServer.start(configuration)
        server.webhookURL = server.receiverURL
        return try ConsoleHarness(server: server, readOnly: readOnly, ledgerPath: ledgerPath, received: received, notes: notes, callTimeout: callTimeout)
    }

    /// A second console on the same demo server and the same ledger, as another agent's would be.
    static func beside(_ other: ConsoleHarness, agent: String) throws -> ConsoleHarness {
        try ConsoleHarness(server: other.server, readOnly: false, ledgerPath: other.writes.ledger.location, received: nil, notes: other.writes.notes, agent: agent)
    }

    private init(
        server: DemoServer, readOnly: Bool, ledgerPath: String?, received: ReceivedNotifications?, notes: (any NoteStore)?, agent: String = "test",
        callTimeout: TimeInterval? = nil
    ) throws {
        self.server = server
        let inbox = ConsoleInbox()
        self.inbox = inbox
        let ledger = try AuditLedger(path: ledgerPath ?? NSTemporaryDirectory() + "iapdesk-harness-\(UUID().uuidString).jsonl")
        let writes = WriteContext(
            ledger: ledger, profile: "demo", bundleId: DemoServer.bundleId, keyId: DemoServer.keyId, isDemo: true, source: .console, agent: agent,
            stateFolder: (ledger.location as NSString).deletingLastPathComponent, notes: notes)
        self.writes = writes
        // `:doctor` checks the demo's credentials written as a profile's would be.
        let doctor = try DoctorFixture(server).doctor(server)
        let services = DeskServices(
            client: try server.makeClient(callTimeout: callTimeout), verifier: try server.makeVerifier(), writes: writes, received: received, doctor: doctor)
        runner = EffectRunner(
            services: services,
            makeServices: { env in
                DeskServices(
                    client: try server.makeClient(environment: env, callTimeout: callTimeout), verifier: try server.makeVerifier(environment: env), writes: writes, received: received)
            },
            makeIdentifier: IdentifierSequence().next,
            post: { inbox.post($0) })
        var state = ConsoleState(profileName: "demo", environment: .production, isDemo: true, bundleId: DemoServer.bundleId, readOnly: readOnly, themeName: "default")
        state.now = Date()
        state.live.source = received?.source
        program = ConsoleProgram(state: state, inbox: inbox, runner: runner, observe: { [performed] in performed.append($0) })
        theme = (try? ThemeCatalog(userDirectory: nil).load("default")) ?? .fallback
    }

    func stop() async {
        runner.cancelAll()
        await server.stop()
    }

    /// Every effect the reducer asked for, in order.
    var effects: [ConsoleEffect] {
        get { performed.all }
        set { performed.replace(newValue) }
    }

    /// Runs the reducer on an action as if it had arrived from the runner.
    func receive(_ action: ConsoleAction) {
        program.send(action)
    }

    func send(_ key: Key) {
        program.send(.key(key))
    }

    /// Lets time pass: `count` ticks, answers applied after each.
    func tick(_ count: Int = 1) {
        for _ in 0..<count {
            program.send(.tick(now: Date()))
            program.drain()
        }
    }

    // The timeouts below are bounds, not delays: a passing test never waits for them, and a 2-core
    // machine busy with the CPU-heavy suites can hold answers back for tens of seconds.

    /// Ticks until `condition` holds, as the console's clock would (its clock ticks every 120 ms;
    /// here every 10 ms, so what waits for ticks rather than answers is not slowed down).
    func tick(until condition: (ConsoleState) -> Bool, timeout: TimeInterval = 60) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            tick()
            if condition(state) { return }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        throw TestError("condition not met after ticking")
    }

    func type(_ text: String) {
        for character in text { send(.character(character)) }
    }

    /// Processes answers until no request is in flight.
    func settle(timeout: TimeInterval = 60) async throws {
        let inbox = self.inbox
        try await pump(until: { $0.inFlight.isEmpty && inbox.isEmpty }, timeout: timeout, failure: { "requests still in flight: \($0.inFlight.values.sorted())" })
    }

    /// Applies answers as they arrive until `condition` holds.
    func pump(until condition: (ConsoleState) -> Bool, timeout: TimeInterval = 60) async throws {
        try await pump(until: condition, timeout: timeout, failure: { "condition not met; in flight: \($0.inFlight.values.sorted())" })
    }

    private func pump(until condition: (ConsoleState) -> Bool, timeout: TimeInterval, failure: (ConsoleState) -> String) async throws {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while true {
            program.drain()
            if condition(state) { return }
            guard try await answerArrives(before: deadline) else { throw TestError(failure(state)) }
        }
    }

    /// Waits for the next answer; false when `deadline` came first.
    private func answerArrives(before deadline: ContinuousClock.Instant) async throws -> Bool {
        let inbox = self.inbox
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await inbox.arrival()
                return !Task.isCancelled
            }
            group.addTask {
                try? await Task.sleep(until: deadline, clock: .continuous)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// Waits until `requests` have finished and hands back their answers unapplied, so a test can
    /// deliver them later and out of order, as a slow network does.
    func holdAnswers(of requests: Set<Int>, timeout: TimeInterval = 60) async throws -> [ConsoleAction] {
        let deadline = ContinuousClock.now + .seconds(timeout)
        var held: [ConsoleAction] = []
        while true {
            held += inbox.take()
            let finished = Set(held.compactMap { action -> Int? in
                if case .finished(let request) = action { return request }
                return nil
            })
            if requests.isSubset(of: finished) { return held }
            guard try await answerArrives(before: deadline) else { throw TestError("requests \(requests.sorted()) did not finish") }
        }
    }

    func screen(width: Int, height: Int, glyphs: GlyphSet = .unicode) -> String {
        let backend = HeadlessBackend(width: width, height: height, glyphs: glyphs)
        let terminal = Terminal(backend: backend)
        terminal.draw { area, buffer in ConsoleView.render(state, theme: theme, area: area, buffer: &buffer) }
        return backend.text
    }

    /// The screen's theme roles, one letter a cell (see `Snapshot.styleMap`).
    func styles(width: Int, height: Int) -> String {
        let backend = HeadlessBackend(width: width, height: height)
        Terminal(backend: backend).draw { area, buffer in ConsoleView.render(state, theme: Snapshot.probeTheme, area: area, buffer: &buffer) }
        return Snapshot.styleMap(backend.screen)
    }
}

/// Request identifiers in a fixed sequence per harness, so screens with them compare between runs.
final class IdentifierSequence: Sendable {
    private let counter = Mutex(0)
    func next() -> String {
        let n = counter.withLock { value -> Int in
            value += 1
            return value
        }
        return String(format: "9a1f0c7e-5b2d-4c3e-8f10-%012d", n)
    }
}

/// The effects a harness's program asked for.
final class EffectLog: Sendable {
    private let storage = Mutex<[ConsoleEffect]>([])
    func append(_ effects: [ConsoleEffect]) { storage.withLock { $0 += effects } }
    var all: [ConsoleEffect] { storage.withLock { $0 } }
    func replace(_ effects: [ConsoleEffect]) { storage.withLock { $0 = effects } }
}

/// Answers posted by an effect runner tested on its own.
final class ActionBox: Sendable {
    private let storage = Mutex<[ConsoleAction]>([])
    func append(_ action: ConsoleAction) { storage.withLock { $0.append(action) } }
    func drain() -> [ConsoleAction] {
        storage.withLock { actions in
            defer { actions.removeAll() }
            return actions
        }
    }
    var isEmpty: Bool { storage.withLock { $0.isEmpty } }
}

struct TestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Compares a screen with `Tests/ConsoleTests/Snapshots/NAME.txt` after masking what changes from
/// run to run (dates, times, UUIDs). A missing reference is written outside CI; `RECORD=1` rewrites.
enum Snapshot {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots")

    static func normalize(_ text: String) -> String {
        var out = text
        let patterns: [(String, String)] = [
            (#"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"#, "<uuid>"),
            (#"\b1[0-9]{12}\b"#, "<ms>"),
            (#"eyJ[A-Za-z0-9_\-]+…?(\(\d+ chars\))?"#, "<jws>"),
            (#"[0-9a-f]{8}-[0-9a-f]{0,4}(-[0-9a-f]{0,4})*…?"#, "<uuid>"),
            (#"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2})?( UTC)?"#, "<time>"),
            (#"\d{2}-\d{2} \d{2}:\d{2}"#, "<time>"),
            (#"\d{4}-\d{2}-\d{2}"#, "<date>"),
            (longDate, "<long-date>"),
            (#"(in \d+ (days|h|min|s)\b|\b\d+ (days|h|min|s) ago)"#, "<span>"),
            // How old a customer's data is depends on how busy the machine was.
            ("read just now", "read <span>"),
        ]
        for (pattern, replacement) in patterns {
            out = out.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        // The padding after a long date changes with it.
        return out.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.contains("<long-date>") ? line.replacingOccurrences(of: " {2,}", with: " ", options: .regularExpression) : String(line)
        }.joined(separator: "\n")
    }

    /// "Thursday 10 December 2026": its width changes with the day the test runs.
    static let longDate =
        #"(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday) \d{1,2} (January|February|March|April|May|June|July|August|September|October|November|December) \d{4}"#

    /// The style map with each line that shows a long date reduced to its sequence of roles (runs
    /// collapsed): the roles still have to match, the widths the date moves do not.
    static func steadyStyles(_ styles: String, text: String) -> String {
        let textLines = text.split(separator: "\n", omittingEmptySubsequences: false)
        return styles.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map { index, line in
            guard index < textLines.count, textLines[index].range(of: longDate, options: .regularExpression) != nil else { return String(line) }
            var collapsed = ""
            for character in line where character != collapsed.last { collapsed.append(character) }
            return collapsed
        }.joined(separator: "\n")
    }

    /// A theme where every role has colours of its own, so each cell tells which role drew it.
    static let probeTheme = Theme(name: "probe", roles: Dictionary(uniqueKeysWithValues: ThemeRole.allCases.enumerated().map { index, role in
        (role, Style(fg: .indexed(UInt8(100 + index)), bg: .indexed(UInt8(150 + index))))
    }))

    /// One letter a cell: the role of its text (lower case), or for a blank cell the role of its
    /// background (upper case) unless it is the plain text background.
    static func styleMap(_ buffer: Buffer) -> String {
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        func role(_ color: Color?, base: Int) -> Int? {
            guard case .indexed(let value)? = color, Int(value) >= base, Int(value) < base + ThemeRole.allCases.count else { return nil }
            return Int(value) - base
        }
        let textRole = ThemeRole.allCases.firstIndex(of: .text)!
        var lines: [String] = []
        for y in buffer.area.y..<buffer.area.bottom {
            var line = ""
            for x in buffer.area.x..<buffer.area.right {
                let cell = buffer[x, y]
                if cell.symbol.isEmpty { continue }
                if cell.symbol != " ", let index = role(cell.style.fg, base: 100) {
                    line.append(letters[index])
                } else if let index = role(cell.style.bg, base: 150), index != textRole {
                    line.append(Character(letters[index].uppercased()))
                } else {
                    line.append(" ")
                }
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    /// A missing or different reference fails; only an explicit `RECORD=1` run writes references.
    static func check(_ screen: String, _ name: String) -> String? {
        let normalized = normalize(screen)
        let file = folder.appendingPathComponent("\(name).txt")
        if ProcessInfo.processInfo.environment["RECORD"] == "1" {
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try? normalized.write(to: file, atomically: true, encoding: .utf8)
            return nil
        }
        guard let expected = try? String(contentsOf: file, encoding: .utf8) else { return "missing snapshot \(name).txt (record it with RECORD=1 swift test --filter ScreenSnapshotTests)" }
        if expected == normalized { return nil }
        let a = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let b = normalized.split(separator: "\n", omittingEmptySubsequences: false)
        for index in 0..<max(a.count, b.count) where (index < a.count ? a[index] : "") != (index < b.count ? b[index] : "") {
            return "snapshot \(name) differs at line \(index + 1):\n- \(index < a.count ? a[index] : "")\n+ \(index < b.count ? b[index] : "")"
        }
        return "snapshot \(name) differs"
    }
}

extension ConsoleAction {
    /// A part of the customer as the runner posts it.
    static func customer(request: Int, _ part: CustomerPart) -> ConsoleAction { .answer(request: request, CustomerAnswer.part(part)) }

    /// The customer's part this action carries, with its request.
    var customerPart: (request: Int, part: CustomerPart)? {
        guard case .answer(let request, let answer as CustomerAnswer) = self, case .part(let part) = answer else { return nil }
        return (request, part)
    }
}

extension Array where Element == ConsoleEffect {
    /// The first task whose name starts with `prefix` ("look up order", "customer", "notification history").
    func task(named prefix: String) -> PaneTask? {
        for effect in self {
            if case .task(let task) = effect, task.name.hasPrefix(prefix) { return task }
        }
        return nil
    }
}

/// Answers as the runner posts them, by the names tests read them with.
extension ConsoleAction {
    static func historyPage(request: Int, _ rows: [VerifiedTransaction], pages: Int) -> ConsoleAction {
        .answer(request: request, TransactionsAnswer.historySoFar(rows, pages: pages))
    }

    static func paneHistory(request: Int, _ result: Result<[VerifiedTransaction], DisplayError>) -> ConsoleAction {
        .answer(request: request, TransactionsAnswer.history(result))
    }

    static func nextPage(request: Int, _ result: Result<HistoryPageAnswer, DisplayError>) -> ConsoleAction {
        .answer(request: request, TransactionsAnswer.nextPage(result))
    }

    static func notificationsPage(request: Int, _ rows: [NotificationRow], pages: Int) -> ConsoleAction {
        .answer(request: request, NotificationsAnswer.historySoFar(rows, pages: pages))
    }

    static func paneNotifications(request: Int, _ result: Result<[NotificationRow], DisplayError>) -> ConsoleAction {
        .answer(request: request, NotificationsAnswer.history(result))
    }

    static func testRequested(request: Int, _ result: Result<String, DisplayError>) -> ConsoleAction {
        .answer(request: request, NotificationsAnswer.testRequested(result))
    }

    static func testStatus(request: Int, _ result: Result<CheckTestNotificationResponse, DisplayError>) -> ConsoleAction {
        .answer(request: request, NotificationsAnswer.testStatus(result))
    }
}
