import FuzzSupport
import TerminalUI

/// The key and paste decoder, two ways from the same bytes:
/// - Terminal sessions: the bytes build typed keys, Escape, Alt keys, escape sequences and bracketed
///   pastes, cut into reads at places a terminal can cut them; `feed` over the reads and a final
///   `flush` must give exactly the keys a person pressed and each paste whole, with `isInsidePaste`
///   true exactly while a paste is open.
/// - Raw input: the static `decode` of anything never loses more than it reads, never yields ESC as a
///   character, and input without ESC is decoded key for key, however it is cut into reads.
@main enum FuzzKeyDecoder {
    static func main() {
        Fuzz.run { buffer in
            var session = FuzzInput(buffer)
            checkSession(TerminalSession(&session))
            var raw = FuzzInput(buffer)
            checkRaw(&raw)
        }
    }

    static func checkSession(_ session: TerminalSession) {
        var decoder = KeyDecoder()
        var keys: [Key] = []
        var start = 0
        for end in session.cuts {
            keys += decoder.feed(Array(session.raw[start..<end]))
            invariant(decoder.isInsidePaste == session.isInsidePaste(after: end),
                      "isInsidePaste is \(decoder.isInsidePaste) after \(end) of \(session.raw.count) items")
            start = end
        }
        keys += decoder.flush()
        invariant(!decoder.isInsidePaste, "still inside a paste after flush")
        invariant(keys == session.expected, "keys \(keys)\nexpected \(session.expected)\nfrom \(session.raw) cut at \(session.cuts)")
    }

    static func checkRaw(_ input: inout FuzzInput) {
        var raw: [RawKey] = []
        while !input.isAtEnd && raw.count < 256 { raw.append(RawInput.item(&input)) }
        let keys = KeyDecoder.decode(raw)
        invariant(keys.count <= raw.count, "\(keys.count) keys from \(raw.count) items")
        invariant(!keys.contains(.character("\u{1B}")), "ESC decoded as a character")
        guard !raw.contains(.scalar("\u{1B}")) else { return }
        let expected = raw.map { item -> Key in
            switch item {
            case .key(let key): return key
            case .scalar(let scalar): return Reference.named(scalar)
            }
        }
        invariant(keys == expected, "decoded \(keys), expected \(expected)")
        // Read lengths from the same bytes again.
        var lengths = FuzzInput(input.bytes)
        var decoder = KeyDecoder()
        var chunked: [Key] = []
        var start = 0
        while start < raw.count {
            let end = min(raw.count, start + 1 + lengths.int(below: 8))
            chunked += decoder.feed(Array(raw[start..<end]))
            start = end
        }
        invariant(chunked + decoder.flush() == expected, "cut into reads, decoded differently")
    }
}

/// What a terminal sends, item by item, with the keys it means.
struct TerminalSession {
    private(set) var raw: [RawKey] = []
    private(set) var expected: [Key] = []
    /// Ends of reads (item counts), ascending, the last one `raw.count`.
    private(set) var cuts: [Int] = []
    /// Where each paste's text starts being held (after two items of its start marker) and ends.
    private var pastes: [Range<Int>] = []

    static let pasteStart: [Unicode.Scalar] = ["\u{1B}", "[", "2", "0", "0", "~"]
    static let pasteEnd: [Unicode.Scalar] = ["\u{1B}", "[", "2", "0", "1", "~"]

    init(_ input: inout FuzzInput) {
        while !input.isAtEnd && raw.count < 512 {
            switch input.int(below: 8) {
            case 0, 1:
                let scalar = RawInput.scalar(&input)
                append(.scalar(scalar), cut: input.byte())
                expected.append(Reference.named(scalar))
            case 2:
                let key = RawInput.key(&input)
                append(.key(key), cut: input.byte())
                expected.append(key)
            case 3:
                // A person pressing Escape: a read of its own.
                append(.scalar("\u{1B}"), cut: 0)
                expected.append(.escape)
            case 4:
                // Alt and a key: ESC and the key in one read.
                var scalar = RawInput.scalar(&input)
                if scalar == "[" || scalar == "O" { scalar = "o" }
                append(.scalar("\u{1B}"), cut: nil)
                append(.scalar(scalar), cut: input.byte())
                expected += [.escape, Reference.named(scalar)]
            case 5:
                appendSequence(&input)
            case 6:
                appendPaste(&input, ended: true)
            default:
                // A paste whose end marker never comes: the last thing in the session.
                appendPaste(&input, ended: false)
                finish()
                return
            }
        }
        finish()
    }

    /// A CSI or SS3 sequence, in one read: a cursor or editing key in one of its common spellings,
    /// else nothing (keys curses did not know).
    private mutating func appendSequence(_ input: inout FuzzInput) {
        var items: [Unicode.Scalar] = ["\u{1B}"]
        if input.bool() {
            items.append("[")
            for _ in 0..<input.int(below: 5) { items.append(input.pick(Array("0123456789;?".unicodeScalars))) }
        } else {
            items.append("O")
        }
        var final = Unicode.Scalar(UInt8(0x40 + input.int(below: 0x3F)))
        if final == "~" && (items == Array(Self.pasteStart.dropLast()) || items == Array(Self.pasteEnd.dropLast())) { final = "A" }
        items.append(final)
        for (offset, scalar) in items.enumerated() {
            append(.scalar(scalar), cut: offset == items.count - 1 ? input.byte() : nil)
        }
        var spelling = String.UnicodeScalarView()
        spelling.append(contentsOf: items.dropFirst())
        if let key = Reference.editingKeys[String(spelling)] { expected.append(key) }
    }

    private mutating func appendPaste(_ input: inout FuzzInput, ended: Bool) {
        let first = raw.count
        for (offset, scalar) in Self.pasteStart.enumerated() {
            // A lone ESC at the end of a read is the Escape key, by design: never cut there.
            append(.scalar(scalar), cut: offset == 0 ? nil : input.byte())
        }
        var text = String.UnicodeScalarView()
        for _ in 0..<input.int(below: 24) {
            if input.int(below: 4) == 0 {
                let key = RawInput.key(&input)
                append(.key(key), cut: input.byte())
                if key == .enter { text.append("\n") }
                if key == .tab { text.append("\t") }
            } else {
                let scalar = RawInput.scalar(&input)
                append(.scalar(scalar), cut: input.byte())
                text.append(scalar)
            }
        }
        if ended {
            for scalar in Self.pasteEnd { append(.scalar(scalar), cut: input.byte()) }
        }
        pastes.append(first + 2..<(ended ? raw.count : Int.max))
        expected.append(.paste(String(text)))
    }

    /// Adds an item; `cut` is a choice byte (a read ends after the item when its low bits are 0),
    /// nil to keep the next item in the same read.
    private mutating func append(_ item: RawKey, cut: UInt8?) {
        raw.append(item)
        if let cut, cut & 3 == 0 { cuts.append(raw.count) }
    }

    private mutating func finish() {
        if cuts.last != raw.count { cuts.append(raw.count) }
    }

    func isInsidePaste(after end: Int) -> Bool {
        pastes.contains { $0.contains(end) }
    }
}

/// Items of raw input, from a few bytes each.
enum RawInput {
    static let interesting: [Unicode.Scalar] = [
        "a", "Z", " ", "[", "O", "~", "0", "1", "2", ";", "\r", "\n", "\t", "\u{7F}", "\u{08}", "\u{01}", "\u{1A}",
        "\u{00}", "\u{1C}", "\u{1F}", "\u{85}", "\u{9B}", "é", "\u{301}", "\u{200D}", "\u{FE0F}", "😀", "🇫", "中", "\u{FEFF}",
    ]
    static let keys: [Key] = [
        .up, .down, .left, .right, .enter, .tab, .backTab, .backspace, .delete, .insert, .home, .end, .pageUp,
        .pageDown, .function(5), .scrollUp, .scrollDown, .click(x: 3, y: 4), .resize,
    ]

    /// Any scalar but ESC.
    static func scalar(_ input: inout FuzzInput) -> Unicode.Scalar {
        if input.bool() { return input.pick(interesting) }
        let value = UInt32(input.byte()) << 8 | UInt32(input.byte())
        guard let scalar = Unicode.Scalar(value), value != 0x1B else { return "x" }
        return scalar
    }

    static func key(_ input: inout FuzzInput) -> Key { input.pick(keys) }

    /// Anything, ESC included and often.
    static func item(_ input: inout FuzzInput) -> RawKey {
        switch input.int(below: 8) {
        case 0: return .key(key(&input))
        case 1, 2: return .scalar("\u{1B}")
        default: return .scalar(scalar(&input))
        }
    }
}

/// What a single character means as a key, as documented for `KeyDecoder`.
enum Reference {
    /// What terminals send for these keys, in whichever spelling their terminfo entry does not use.
    static let editingKeys: [String: Key] = [
        "[A": .up, "OA": .up, "[B": .down, "OB": .down, "[C": .right, "OC": .right, "[D": .left, "OD": .left,
        "[H": .home, "OH": .home, "[1~": .home, "[7~": .home, "[F": .end, "OF": .end, "[4~": .end, "[8~": .end,
        "[5~": .pageUp, "[6~": .pageDown, "[2~": .insert, "[3~": .delete, "[Z": .backTab,
    ]

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
