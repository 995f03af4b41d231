import AppStoreServerAPI
import Console
import DeskCore
import Foundation
import Synchronization
import TerminalUI

/// Actions posted from background tasks, and a pipe that wakes the terminal thread.
final class Inbox: Sendable {
    private let queue = Mutex<[ConsoleAction]>([])
    let readFD: Int32
    let writeFD: Int32

    init() throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw CLIError("Cannot create the console's wake pipe.", status: .failure) }
        readFD = fds[0]
        writeFD = fds[1]
        _ = fcntl(readFD, F_SETFL, fcntl(readFD, F_GETFL) | O_NONBLOCK)
        _ = fcntl(writeFD, F_SETFL, fcntl(writeFD, F_GETFL) | O_NONBLOCK)
    }

    func post(_ action: ConsoleAction) {
        queue.withLock { $0.append(action) }
        var byte: UInt8 = 1
        _ = write(writeFD, &byte, 1)
    }

    func drain() -> [ConsoleAction] {
        var sink = [UInt8](repeating: 0, count: 256)
        while read(readFD, &sink, sink.count) > 0 {}
        return queue.withLock { actions in
            defer { actions.removeAll() }
            return actions
        }
    }
}

/// The full-screen console: one thread owns the terminal, waits in poll(2) on the keyboard and
/// the inbox, feeds the reducer, hands effects to the runner and draws only what changed.
final class ConsoleLoop {
    private var state: ConsoleState
    private var theme: Theme
    private let catalog: ThemeCatalog
    private let runner: EffectRunner
    private let inbox: Inbox
    private let noColor: Bool

    init(state: ConsoleState, theme: Theme, catalog: ThemeCatalog, runner: EffectRunner, inbox: Inbox, noColor: Bool) {
        self.state = state
        self.theme = theme
        self.catalog = catalog
        self.runner = runner
        self.inbox = inbox
        self.noColor = noColor
    }

    /// `exitAfterFirstFrame` measures start-up: the loop ends once the first frame is on screen.
    func run(initialEffects: [ConsoleEffect] = [], exitAfterFirstFrame: Bool = false) throws {
        TerminalSignals.install(wakeFD: inbox.writeFD)
        let backend = try CursesBackend()
        defer {
            runner.cancelAll()
            backend.end()
        }
        let terminal = Terminal(backend: backend)
        let palette = { [noColor] (theme: Theme) -> Theme in
            noColor || backend.colors < 8 ? theme.monochrome : theme.quantized(colors: backend.colors)
        }
        var shown = palette(theme)
        let ticker = Task.detached { [inbox] in
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: 120_000_000)
                inbox.post(.tick(now: Date()))
            }
        }
        defer { ticker.cancel() }
        perform(initialEffects)
        _ = ConsoleReducer.reduce(&state, .screenSize(width: backend.size.width, height: backend.size.height))
        terminal.draw { area, buffer in ConsoleView.render(state, theme: shown, area: area, buffer: &buffer) }
        if exitAfterFirstFrame { return }

        var decoder = KeyDecoder()
        var quietPolls = 0
        while !state.shouldQuit && TerminalSignals.stopRequested == 0 {
            var fds = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0), pollfd(fd: inbox.readFD, events: Int16(POLLIN), revents: 0)]
            // Inside a paste the rest follows at once; a paste whose end never comes is ended after 0.5 s.
            let ready = poll(&fds, 2, decoder.isInsidePaste ? 50 : 1000)
            var dirty = false
            let raw = backend.readKeys()
            quietPolls = raw.isEmpty && decoder.isInsidePaste && ready == 0 ? quietPolls + 1 : 0
            var keys = decoder.feed(raw)
            if quietPolls >= 10 {
                keys += decoder.flush()
                quietPolls = 0
            }
            for key in keys {
                if key == .resize {
                    terminal.invalidate()
                    _ = ConsoleReducer.reduce(&state, .screenSize(width: backend.size.width, height: backend.size.height))
                }
                perform(ConsoleReducer.reduce(&state, .key(key)))
                dirty = true
            }
            for action in inbox.drain() {
                if case .tick = action {
                    // Ticks only matter while something animates or expires.
                    let animating = !state.inFlight.isEmpty || !state.toasts.isEmpty
                    // A live tail polls on ticks; its answers redraw when they arrive.
                    perform(ConsoleReducer.reduce(&state, action))
                    dirty = dirty || animating
                    continue
                }
                if case .themeChanged(.success(let name)) = action, let loaded = try? catalog.load(name) {
                    theme = loaded
                    shown = palette(theme)
                    terminal.invalidate()
                }
                perform(ConsoleReducer.reduce(&state, action))
                dirty = true
            }
            if dirty {
                terminal.draw { area, buffer in ConsoleView.render(state, theme: shown, area: area, buffer: &buffer) }
            }
        }
    }

    private func perform(_ effects: [ConsoleEffect]) {
        for effect in effects {
            switch effect {
            case .copy(let text):
                // OSC 52: the terminal (and tmux, when allowed) puts the text on the clipboard.
                let encoded = Data(text.utf8).base64EncodedString()
                let sequence = "\u{1B}]52;c;\(encoded)\u{07}"
                _ = sequence.withCString { write(STDOUT_FILENO, $0, strlen($0)) }
            case .setTheme(let name):
                do {
                    _ = try catalog.load(name)
                    inbox.post(.themeChanged(.success(name)))
                } catch {
                    inbox.post(.themeChanged(.failure(DisplayError(summary: "\(error)"))))
                }
            case .quit:
                state.shouldQuit = true
            default:
                runner.run(effect)
            }
        }
    }
}
