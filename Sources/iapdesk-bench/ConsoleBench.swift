import AppStoreServerAPI
import CNCursesW
import Console
import DeskCore
import Foundation
import TerminalUI

/// Frame cost of the console on a 10,000-row notification table, bytes sent for a one-row
/// scroll through real ncurses on a pseudo-terminal, and start-up to the first frame.
enum ConsoleBench {
    static func state(rows: Int) -> ConsoleState {
        var state = ConsoleState(profileName: "bench", environment: .production, isDemo: true, bundleId: "com.iapdesk.demo", readOnly: false, themeName: "default")
        state.pane = .notifications
        state.focus = .content
        let types: [NotificationType] = [.didRenew, .expired, .refund, .subscribed, .didFailToRenew]
        let results: [SendAttemptResult] = [.success, .timedOut, .tlsIssue, .noResponse]
        var list: [NotificationRow] = []
        list.reserveCapacity(rows)
        let start = Date().addingTimeInterval(-30 * 86_400)
        for index in 0..<rows {
            var payload = NotificationPayload()
            payload.notificationType = types[index % types.count]
            payload.notificationUUID = String(format: "00000000-0000-4000-8000-%012d", index)
            payload.signedDate = start.addingTimeInterval(Double(index) * 60)
            let notification = VerifiedPayload(payload: payload, rawPayload: nil, header: nil, status: .verified, chainSubjects: [])
            let attempts = (0...(index % 3)).map { SendAttemptItem(attemptDate: payload.signedDate, sendAttemptResult: results[($0 + index) % results.count]) }
            list.append(NotificationRow(decoded: DecodedNotification(notification: notification, transaction: nil, renewalInfo: nil, appTransaction: nil),
                                        signedPayload: "", attempts: attempts))
        }
        state.notificationsPane = .loaded(list)
        // As the console does at start: list keys then keep the selection inside the visible rows.
        _ = ConsoleReducer.reduce(&state, .screenSize(width: 120, height: 36))
        return state
    }

    static func measureFrames(frames: Int = 2_000) {
        measureFrames(frames: frames, scrollsRows: false, name: "console_frame_10k_rows")
        // The same with the search for rows that moved, as a terminal with scroll regions has it.
        measureFrames(frames: frames, scrollsRows: true, name: "console_frame_10k_rows_with_row_scrolls")
    }

    static func measureFrames(frames: Int, scrollsRows: Bool, name: String) {
        var state = state(rows: 10_000)
        let theme = (try? ThemeCatalog(userDirectory: nil).load("default")) ?? .fallback
        let backend = HeadlessBackend(width: 120, height: 36, scrollsRows: scrollsRows)
        let terminal = Terminal(backend: backend)
        terminal.draw { area, buffer in ConsoleView.render(state, theme: theme, area: area, buffer: &buffer) }
        var timings: [Double] = []
        timings.reserveCapacity(frames)
        for frame in 0..<frames {
            _ = ConsoleReducer.reduce(&state, .key(frame % 500 == 499 ? .home : .down))
            let start = ContinuousClock.now
            terminal.draw { area, buffer in ConsoleView.render(state, theme: theme, area: area, buffer: &buffer) }
            timings.append((ContinuousClock.now - start).seconds * 1_000_000)
        }
        timings.sort()
        print("\(name)_p50: \(Int(timings[timings.count / 2])) microseconds")
        print("\(name)_p99: \(Int(timings[timings.count * 99 / 100])) microseconds")
    }

    /// Bytes of a one-row selection move and of a one-row scroll, with ncurses' scroll regions
    /// (the default) and without, to show what they save.
    static func measureScrollBytes() throws {
        guard let with = try scrollBytes(scrollRegions: true), let without = try scrollBytes(scrollRegions: false) else { return }
        print("console_first_frame_bytes: \(with.first) bytes")
        print("console_select_one_row_bytes: \(with.select) bytes")
        print("console_scroll_one_row_bytes: \(with.scroll) bytes")
        print("console_first_frame_bytes_without_scroll_regions: \(without.first) bytes")
        print("console_scroll_one_row_bytes_without_scroll_regions: \(without.scroll) bytes")
    }

    /// Draws the table through ncurses on a pseudo-terminal: the first frame, the median of 20
    /// selection moves inside the view, then the median of 20 moves that scroll the view by one row.
    static func scrollBytes(scrollRegions: Bool) throws -> (first: Int, select: Int, scroll: Int)? {
        let master = posix_openpt(O_RDWR | O_NOCTTY)
        guard master >= 0, grantpt(master) == 0, unlockpt(master) == 0, let name = ptsname(master) else {
            print("console_scroll_one_row_bytes: unavailable (no pseudo-terminal)")
            return nil
        }
        var size = winsize(ws_row: 36, ws_col: 120, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        let slavePath = String(cString: name)
        guard let output = fopen(slavePath, "r+"), let input = fopen(slavePath, "r") else {
            print("console_scroll_one_row_bytes: unavailable (cannot open \(slavePath))")
            return nil
        }
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
        func drain() -> Int {
            var total = 0
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(master, &chunk, chunk.count)
                if count <= 0 { break }
                total += count
            }
            return total
        }
        setenv("TERM", "xterm-256color", 1)
        let backend = try CursesBackend(
            terminal: (type: "xterm-256color", input: input, output: output, outputFD: fileno(output)), scrollRegions: scrollRegions)
        defer { backend.end() }
        var state = state(rows: 10_000)
        let theme = ((try? ThemeCatalog(userDirectory: nil).load("default")) ?? .fallback).quantized(colors: max(backend.colors, 8))
        let terminal = Terminal(backend: backend)
        terminal.draw { area, buffer in ConsoleView.render(state, theme: theme, area: area, buffer: &buffer) }
        let firstFrame = drain()
        func moves(_ count: Int) -> [Int] {
            (0..<count).map { _ in
                _ = ConsoleReducer.reduce(&state, .key(.down))
                terminal.draw { area, buffer in ConsoleView.render(state, theme: theme, area: area, buffer: &buffer) }
                return drain()
            }.sorted()
        }
        let selects = moves(20)
        // On to the last visible row: from there each move scrolls the view by one row.
        _ = moves(40)
        let scrolls = moves(20)
        fclose(input)
        fclose(output)
        close(master)
        return (firstFrame, selects[selects.count / 2], scrolls[scrolls.count / 2])
    }

    /// Runs `iapdesk demo --exit-after-first-frame` on a pseudo-terminal and times it.
    static func measureStartup(runs: Int = 5) throws {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("iapdesk")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            print("console_start_to_first_frame: unavailable (build iapdesk in the same configuration first: swift build -c release)")
            return
        }
        var timings: [Double] = []
        for _ in 0..<runs {
            let master = posix_openpt(O_RDWR | O_NOCTTY)
            guard master >= 0, grantpt(master) == 0, unlockpt(master) == 0, let name = ptsname(master) else { return }
            var size = winsize(ws_row: 36, ws_col: 120, ws_xpixel: 0, ws_ypixel: 0)
            _ = ioctl(master, UInt(TIOCSWINSZ), &size)
            guard let slave = FileHandle(forUpdatingAtPath: String(cString: name)) else { return }
            let reader = Task.detached {
                var chunk = [UInt8](repeating: 0, count: 65_536)
                while read(master, &chunk, chunk.count) > 0 {}
            }
            let process = Process()
            process.executableURL = binary
            process.arguments = ["demo", "--exit-after-first-frame"]
            var environment = ProcessInfo.processInfo.environment
            environment["TERM"] = "xterm-256color"
            environment["XDG_STATE_HOME"] = NSTemporaryDirectory() + "iapdesk-bench-state"
            process.environment = environment
            process.standardInput = slave
            process.standardOutput = slave
            process.standardError = FileHandle.nullDevice
            let start = ContinuousClock.now
            try process.run()
            process.waitUntilExit()
            timings.append((ContinuousClock.now - start).seconds * 1000)
            try? slave.close()
            close(master)
            reader.cancel()
            guard process.terminationStatus == 0 else {
                print("console_start_to_first_frame: unavailable (exit status \(process.terminationStatus))")
                return
            }
        }
        timings.sort()
        print("console_start_to_first_frame_median: \(Int(timings[timings.count / 2])) ms")
    }
}
