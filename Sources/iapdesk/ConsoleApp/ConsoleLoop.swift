import AppStoreServerAPI
import Console
import DeskCore
import Foundation
import Synchronization
import TerminalUI

/// The console's inbox with a pipe that wakes the terminal thread out of poll(2) when an answer
/// arrives.
final class WakingInbox: Sendable {
    let inbox: ConsoleInbox
    let readFD: Int32
    let writeFD: Int32

    init() throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw CLIError("Cannot create the console's wake pipe.", status: .failure) }
        let (readFD, writeFD) = (fds[0], fds[1])
        _ = fcntl(readFD, F_SETFL, fcntl(readFD, F_GETFL) | O_NONBLOCK)
        _ = fcntl(writeFD, F_SETFL, fcntl(writeFD, F_GETFL) | O_NONBLOCK)
        self.readFD = readFD
        self.writeFD = writeFD
        inbox = ConsoleInbox(wake: {
            var byte: UInt8 = 1
            _ = write(writeFD, &byte, 1)
        })
    }

    func post(_ action: ConsoleAction) { inbox.post(action) }

    /// Empties the pipe: what woke the thread is now read from `inbox`.
    func clearWake() {
        var sink = [UInt8](repeating: 0, count: 256)
        while read(readFD, &sink, sink.count) > 0 {}
    }
}

/// The full-screen console: one thread owns the terminal, waits in poll(2) on the keyboard and
/// the inbox, runs the program on what arrives and draws only what changed.
final class ConsoleLoop {
    private let program: ConsoleProgram
    private var theme: Theme
    private let catalog: ThemeCatalog
    private let inbox: WakingInbox
    private let noColor: Bool

    init(state: ConsoleState, theme: Theme, catalog: ThemeCatalog, runner: EffectRunner, inbox: WakingInbox, noColor: Bool) {
        self.theme = theme
        self.catalog = catalog
        self.inbox = inbox
        self.noColor = noColor
        program = ConsoleProgram(state: state, inbox: inbox.inbox, runner: runner, frontEnd: { effect, _ in
            switch effect {
            case .copy(let text):
                // OSC 52: the terminal (and tmux, when allowed) puts the text on the clipboard.
                let encoded = Data(text.utf8).base64EncodedString()
                let sequence = "\u{1B}]52;c;\(encoded)\u{07}"
                _ = sequence.withCString { write(STDOUT_FILENO, $0, strlen($0)) }
                return true
            case .suspend:
                // Done by the loop between keys, where the terminal is not being drawn.
                TerminalSignals.suspendRequested = 1
                return true
            case .setTheme(let name):
                do {
                    _ = try catalog.load(name)
                    inbox.post(.themeChanged(.success(name)))
                } catch {
                    inbox.post(.themeChanged(.failure(DisplayError(summary: "\(error)"))))
                }
                return true
            default:
                return false
            }
        })
    }

    /// `exitAfterFirstFrame` measures start-up: the loop ends once the first frame is on screen.
    func run(initialEffects: [ConsoleEffect] = [], exitAfterFirstFrame: Bool = false) throws {
        TerminalSignals.install(wakeFD: inbox.writeFD)
        let backend = try CursesBackend()
        defer {
            program.stop()
            backend.end()
            TerminalSignals.uninstallSuspend()
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
        program.perform(initialEffects)
        program.send(.screenSize(width: backend.size.width, height: backend.size.height))
        terminal.draw { [program] area, buffer in ConsoleView.render(program.state, theme: shown, area: area, buffer: &buffer) }
        if exitAfterFirstFrame { return }

        var decoder = KeyDecoder()
        var quietPolls = 0
        while !program.state.shouldQuit && TerminalSignals.stopRequested == 0 {
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
                    program.send(.screenSize(width: backend.size.width, height: backend.size.height))
                }
                program.send(.key(key))
                dirty = true
            }
            inbox.clearWake()
            program.drain { action, state in
                if case .tick = action {
                    // Ticks only matter while something animates or expires; a live tail's answers
                    // redraw when they arrive.
                    dirty = dirty || !state.inFlight.isEmpty || !state.toasts.isEmpty
                    return
                }
                if case .themeChanged(.success(let name)) = action, let loaded = try? catalog.load(name) {
                    theme = loaded
                    shown = palette(theme)
                    terminal.invalidate()
                }
                dirty = true
            }
            if TerminalSignals.suspendRequested != 0 {
                // The shell gets the terminal as at exit; `fg` brings the console back, at the size the terminal has then.
                backend.suspend()
                TerminalSignals.stopUntilContinued()
                backend.resume()
                TerminalSignals.continued = 1
            }
            if TerminalSignals.continued != 0 {
                // Continued: after a suspension, or after a stop the console never saw (SIGSTOP): whatever
                // was printed meanwhile is painted over.
                TerminalSignals.continued = 0
                terminal.invalidate()
                program.send(.screenSize(width: backend.size.width, height: backend.size.height))
                dirty = true
            }
            if dirty {
                terminal.draw { [program] area, buffer in ConsoleView.render(program.state, theme: shown, area: area, buffer: &buffer) }
            }
        }
    }
}
