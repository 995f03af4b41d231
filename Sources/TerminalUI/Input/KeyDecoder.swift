/// What a terminal library hands over: a decoded key, or a plain character that may be part of a
/// sequence the library did not recognise.
public enum RawKey: Sendable, Equatable {
    case key(Key)
    case scalar(Unicode.Scalar)
}

/// Turns raw input into keys: bracketed pastes (ESC [200~ ... ESC [201~) become one `.paste`,
/// control characters become named keys, ESC is Escape unless it starts a CSI/SS3 sequence.
///
/// A long paste arrives over many reads; the decoder keeps an open paste (and a paste marker cut
/// in two) between calls of `feed`, so none of its text is taken for typed keys.
public struct KeyDecoder: Sendable {
    static let pasteStart: [Unicode.Scalar] = ["\u{1B}", "[", "2", "0", "0", "~"]
    static let pasteEnd: [Unicode.Scalar] = ["\u{1B}", "[", "2", "0", "1", "~"]

    /// Text of a paste whose end marker has not arrived yet.
    private var openPaste: String.UnicodeScalarView?
    /// The start of a marker cut off at the end of the last read.
    private var carried: [RawKey] = []

    public init() {}

    /// True while a paste has started and not ended: more input is expected soon.
    public var isInsidePaste: Bool { openPaste != nil || !carried.isEmpty }

    /// Decodes every complete key in `raw`, keeping an unfinished paste for the next call.
    public mutating func feed(_ raw: [RawKey]) -> [Key] {
        var input = carried + raw
        carried = []
        var keys: [Key] = []
        var index = 0
        if openPaste != nil {
            index = continuePaste(&input, from: 0, into: &keys)
        }
        while index < input.count {
            if Self.matches(Self.pasteStart, in: input, at: index) {
                openPaste = String.UnicodeScalarView()
                index = continuePaste(&input, from: index + Self.pasteStart.count, into: &keys)
                continue
            }
            if Self.isCutMarker(input, from: index) {
                carried = Array(input[index...])
                break
            }
            switch input[index] {
            case .key(let key): keys.append(key)
            case .scalar(let scalar):
                if scalar == "\u{1B}" {
                    // ESC followed by more characters in the same read is an unrecognised sequence or Alt-key.
                    if index + 1 < input.count, case .scalar(let next) = input[index + 1], next == "[" || next == "O" {
                        var cursor = index + 2
                        while cursor < input.count, case .scalar(let s) = input[cursor], !(s.value >= 0x40 && s.value <= 0x7E) { cursor += 1 }
                        if cursor < input.count, let key = Self.editingKey(input[(index + 1)...cursor]) { keys.append(key) }
                        index = cursor + 1
                        continue
                    }
                    // Anything else after ESC is a separate key pressed right after Escape.
                    keys.append(.escape)
                } else {
                    keys.append(Self.named(scalar))
                }
            }
            index += 1
        }
        return keys
    }

    /// Cursor and editing keys in the forms terminals send whatever their terminfo entry says:
    /// tmux under TERM=xterm-256color sends ESC [1~ and ESC [4~ for Home and End, which xterm's entry
    /// spells ESC O H and ESC O F, so curses passes them on as characters.
    static func editingKey(_ sequence: ArraySlice<RawKey>) -> Key? {
        var text = ""
        for raw in sequence {
            guard case .scalar(let scalar) = raw else { return nil }
            text.unicodeScalars.append(scalar)
        }
        switch text {
        case "[A", "OA": return .up
        case "[B", "OB": return .down
        case "[C", "OC": return .right
        case "[D", "OD": return .left
        case "[H", "OH", "[1~", "[7~": return .home
        case "[F", "OF", "[4~", "[8~": return .end
        case "[5~": return .pageUp
        case "[6~": return .pageDown
        case "[2~": return .insert
        case "[3~": return .delete
        case "[Z": return .backTab
        default: return nil
        }
    }

    /// Ends an open paste with what has arrived (the terminal never sent the end marker).
    public mutating func flush() -> [Key] {
        var keys: [Key] = []
        if let text = openPaste {
            keys.append(.paste(String(text)))
            openPaste = nil
        }
        if !carried.isEmpty {
            let rest = carried
            carried = []
            keys += rest.compactMap { item -> Key? in
                switch item {
                case .key(let key): return key
                case .scalar(let scalar): return scalar == "\u{1B}" ? .escape : Self.named(scalar)
                }
            }
        }
        return keys
    }

    /// Decodes one complete read (a paste left open is ended with what arrived).
    public static func decode(_ raw: [RawKey]) -> [Key] {
        var decoder = KeyDecoder()
        return decoder.feed(raw) + decoder.flush()
    }

    /// Adds paste text from `start` until the end marker (emitting the paste) or the end of input.
    private mutating func continuePaste(_ input: inout [RawKey], from start: Int, into keys: inout [Key]) -> Int {
        var cursor = start
        while cursor < input.count {
            if Self.matches(Self.pasteEnd, in: input, at: cursor) {
                keys.append(.paste(String(openPaste ?? String.UnicodeScalarView())))
                openPaste = nil
                return cursor + Self.pasteEnd.count
            }
            // Inside a paste a lone ESC is no key press: it may be the end marker cut by the read.
            if Self.isCutMarker(input, from: cursor, marker: Self.pasteEnd, shortest: 1) {
                carried = Array(input[cursor...])
                return input.count
            }
            switch input[cursor] {
            case .scalar(let s): openPaste?.append(s)
            case .key(.enter): openPaste?.append("\n")
            case .key(.tab): openPaste?.append("\t")
            default: break
            }
            cursor += 1
        }
        return cursor
    }

    static func matches(_ marker: [Unicode.Scalar], in input: [RawKey], at start: Int) -> Bool {
        guard start + marker.count <= input.count else { return false }
        for (offset, expected) in marker.enumerated() {
            guard case .scalar(let s) = input[start + offset], s == expected else { return false }
        }
        return true
    }

    /// The rest of the input is a proper prefix of a marker at least `shortest` items long (outside a
    /// paste a lone ESC is the Escape key, so by default it takes two).
    static func isCutMarker(_ input: [RawKey], from start: Int, marker: [Unicode.Scalar] = pasteStart, shortest: Int = 2) -> Bool {
        let count = input.count - start
        guard count >= shortest, count < marker.count else { return false }
        for offset in 0..<count {
            guard case .scalar(let s) = input[start + offset], s == marker[offset] else { return false }
        }
        return true
    }

    static func named(_ scalar: Unicode.Scalar) -> Key {
        switch scalar.value {
        case 0x0D, 0x0A: return .enter
        case 0x09: return .tab
        case 0x7F, 0x08: return .backspace
        case 0x01...0x1A: return .control(Character(Unicode.Scalar(scalar.value + 0x60)!))
        default: return .character(Character(scalar))
        }
    }
}
