import CNCursesW
import Foundation

/// The real terminal through ncursesw's wide-character API. One thread owns it: create, use and
/// end it on the same thread, and never from an async task.
public final class CursesBackend: Backend {
    private let window: UnsafeMutablePointer<WINDOW>
    public let colors: Int
    private var pairs: [Style: Int16] = [:]
    private var nextPair: Int16 = 1
    private var ended = false

    private let outputFD: Int32
    /// Rows that moved are moved with the terminal's scroll region (see `scroll`).
    public let scrollsRows: Bool
    public let glyphs: GlyphSet

    /// Enters full-screen mode: raw keys, no echo, keypad, 25 ms Esc delay, mouse wheel, bracketed paste.
    /// With `terminal`, draws on that terminal (a pty in benchmarks) instead of standard input and output.
    /// `scrollRegions`: move lines that moved (a table scrolled by a row) with the terminal's scroll
    /// regions and line insert/delete instead of redrawing them (false: redraw). `glyphs`: the
    /// characters to draw with (default: as the locale allows).
    public init(
        terminal: (type: String, input: UnsafeMutablePointer<FILE>, output: UnsafeMutablePointer<FILE>, outputFD: Int32)? = nil,
        scrollRegions: Bool = true, glyphs: GlyphSet? = nil
    ) throws {
        TextWidth.prepareLocale()
        self.glyphs = glyphs ?? GlyphSet.forLocale()
        if let terminal {
            guard let screen = newterm(terminal.type, terminal.output, terminal.input) else {
                throw TerminalError("the terminal \(terminal.type) could not be initialised")
            }
            set_term(screen)
            guard let main = iapdesk_stdscr() else { throw TerminalError("no screen window") }
            window = main
            outputFD = terminal.outputFD
        } else {
            guard let screen = initscr() else { throw TerminalError("the terminal could not be initialised (is TERM set?)") }
            window = screen
            outputFD = STDOUT_FILENO
        }
        let main: UnsafeMutablePointer<WINDOW> = window
        raw()
        noecho()
        nonl()
        keypad(main, true)
        // A view scrolled by a few rows then costs the rows that came in, not the whole view.
        idlok(main, scrollRegions)
        scrollsRows = scrollRegions && iapdesk_can_scroll_rows() != 0
        nodelay(main, true)
        set_escdelay(25)
        curs_set(0)
        var colorCount = 0
        if has_colors() {
            start_color()
            use_default_colors()
            colorCount = Int(iapdesk_colors())
        }
        colors = colorCount
        var old: mmask_t = 0
        mousemask(iapdesk_button1_pressed() | iapdesk_button4_pressed() | iapdesk_button5_pressed(), &old)
        mouseinterval(0)
        Self.writeRaw("\u{1B}[?2004h", to: outputFD)
    }

    deinit { end() }

    /// Leaves full-screen mode and restores the terminal; safe to call more than once.
    public func end() {
        guard !ended else { return }
        ended = true
        Self.writeRaw("\u{1B}[?2004l", to: outputFD)
        // Without an alternate screen (the Linux console, vt100) the console's last frame would
        // stay under the shell's prompt: clear it.
        if iapdesk_has_alternate_screen() == 0 {
            wclear(window)
            wrefresh(window)
        }
        endwin()
    }

    /// Hands the terminal back as `end` does (shell modes, main screen, no bracketed paste), to be
    /// taken again by `resume` when the process is continued.
    public func suspend() {
        guard !ended else { return }
        Self.writeRaw("\u{1B}[?2004l", to: outputFD)
        endwin()
    }

    /// Takes the terminal again after `suspend`: its size as it is now, raw modes, the alternate
    /// screen and bracketed paste; the next frame is drawn whole.
    public func resume() {
        guard !ended else { return }
        _ = iapdesk_take_terminal_size(outputFD)
        // ncurses puts the terminal back in the program's modes at the next refresh.
        clearok(window, true)
        wrefresh(window)
        Self.writeRaw("\u{1B}[?2004h", to: outputFD)
    }

    public var size: (width: Int, height: Int) { (Int(getmaxx(window)), Int(getmaxy(window))) }

    public func clear() {
        wclear(window)
    }

    public func draw(_ changes: [(x: Int, y: Int, cell: Cell)]) {
        for change in changes where !change.cell.isContinuation {
            var wide = change.cell.symbol.unicodeScalars.prefix(5).map { wchar_t(bitPattern: $0.value) }
            if wide.isEmpty { wide = [wchar_t(32)] }
            wide.append(0)
            var character = cchar_t()
            let (attributes, pair) = resolve(change.cell.style)
            _ = wide.withUnsafeBufferPointer { setcchar(&character, $0.baseAddress, attributes, pair, nil) }
            // Writing the bottom-right cell reports an error (the cursor cannot advance) but draws it.
            _ = mvwadd_wch(window, Int32(change.y), Int32(change.x), &character)
        }
    }

    /// Moves the rows on the terminal now, and in ncurses' picture of the screen (curscr) and of the
    /// window, so that the next update draws only what is left. ncurses' own line-move detection
    /// rarely does this for a table: neighbouring rows differ in a few cells, so it rewrites them.
    public func scroll(_ move: RowScroll) -> Bool {
        guard scrollsRows else { return false }
        return iapdesk_scroll_rows(outputFD, window, Int32(move.top), Int32(move.bottom - 1), Int32(move.distance)) == OK
    }

    public func flush() {
        wnoutrefresh(window)
        doupdate()
    }

    private func resolve(_ style: Style) -> (attr_t, Int16) {
        var attributes = iapdesk_a_normal()
        if style.modifiers.contains(.bold) { attributes |= iapdesk_a_bold() }
        if style.modifiers.contains(.dim) { attributes |= iapdesk_a_dim() }
        if style.modifiers.contains(.italic) { attributes |= iapdesk_a_italic() }
        if style.modifiers.contains(.underline) { attributes |= iapdesk_a_underline() }
        if style.modifiers.contains(.reverse) { attributes |= iapdesk_a_reverse() }
        guard colors > 0, style.fg != nil || style.bg != nil else { return (attributes, 0) }
        let key = Style(fg: style.fg, bg: style.bg)
        if let pair = pairs[key] { return (attributes, pair) }
        guard Int(nextPair) < min(Int(iapdesk_color_pairs()), 32_767) else { return (attributes, 0) }
        let pair = nextPair
        nextPair += 1
        init_pair(pair, Self.number(style.fg, colors), Self.number(style.bg, colors))
        pairs[key] = pair
        return (attributes, pair)
    }

    static func number(_ color: Color?, _ colors: Int) -> Int16 {
        guard let color else { return -1 }
        switch color.quantized(to: min(colors, 256)) {
        case .default: return -1
        case .indexed(let index): return Int16(index)
        case .rgb: return -1
        }
    }

    /// Every key waiting now (never blocks). Unknown escape sequences arrive as their characters,
    /// which `KeyDecoder` turns into pastes and Alt keys.
    public func readKeys() -> [RawKey] {
        var keys: [RawKey] = []
        var value: wint_t = 0
        while keys.count < 4096 {
            let result = wget_wch(window, &value)
            if result == ERR { break }
            if result == KEY_CODE_YES {
                if Int32(value) == KEY_MOUSE {
                    var event = MEVENT()
                    if getmouse(&event) == OK {
                        if event.bstate & iapdesk_button4_pressed() != 0 { keys.append(.key(.scrollUp)) }
                        else if event.bstate & iapdesk_button5_pressed() != 0 { keys.append(.key(.scrollDown)) }
                        else if event.bstate & iapdesk_button1_pressed() != 0 { keys.append(.key(.click(x: Int(event.x), y: Int(event.y)))) }
                    }
                    continue
                }
                if let key = Self.functionKey(Int32(value)) { keys.append(.key(key)) }
            } else if let scalar = Unicode.Scalar(UInt32(value)) {
                keys.append(.scalar(scalar))
            }
        }
        return keys
    }

    static func functionKey(_ code: Int32) -> Key? {
        switch code {
        case KEY_UP: return .up
        case KEY_DOWN: return .down
        case KEY_LEFT: return .left
        case KEY_RIGHT: return .right
        case KEY_PPAGE: return .pageUp
        case KEY_NPAGE: return .pageDown
        case KEY_HOME: return .home
        case KEY_END: return .end
        case KEY_BACKSPACE: return .backspace
        case KEY_DC: return .delete
        case KEY_IC: return .insert
        case KEY_BTAB: return .backTab
        case KEY_ENTER: return .enter
        case KEY_RESIZE: return .resize
        default:
            let first = iapdesk_key_f(1)
            if code >= first && code < first + 24 { return .function(Int(code - first) + 1) }
            return nil
        }
    }

    static func writeRaw(_ text: String, to fd: Int32 = STDOUT_FILENO) {
        _ = text.withCString { write(fd, $0, strlen($0)) }
    }
}

public struct TerminalError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension CursesBackend {
    /// Restores the terminal from a signal handler when the process is about to die.
    public static func emergencyRestore() {
        writeRaw("\u{1B}[?2004l")
        endwin()
    }
}
