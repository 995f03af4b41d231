import FuzzSupport
@testable import TerminalUI

/// The bytes are a run of edits on a text field (typing, pasting, deleting, moving, changing the
/// length limit, drawing). After every edit the cursor is on a grapheme boundary within the text,
/// the text holds no control characters and keeps its limit, and each key does what it says:
/// Home and End reach the ends, arrows move one cluster, Delete keeps what is before the cursor,
/// Backspace what is after it, typing keeps both, and keys a field does not handle change nothing.
@main enum FuzzTextInput {
    static let cursorStyle = Style(fg: .indexed(201))

    static func main() {
        Fuzz.run { buffer in
            var input = FuzzInput(buffer)
            var state = TextInputState(text: Pieces.text(&input), maxLength: input.int(below: 24), selected: input.bool())
            checkState(state)
            var edits = 0
            while !input.isAtEnd && edits < 256 {
                edits += 1
                edit(&state, &input)
                checkState(state)
            }
        }
    }

    static func edit(_ state: inout TextInputState, _ input: inout FuzzInput) {
        let before = state
        switch input.int(below: 18) {
        case 0, 1, 2: type(.character(Pieces.character(&input)), into: &state)
        case 3: type(.paste(Pieces.text(&input)), into: &state)
        case 4: handle(.backspace, &state); checkBackspace(before, state)
        case 5: handle(.delete, &state); checkDelete(before, state)
        case 6:
            handle(.left, &state)
            invariant(state.text == before.text && state.cursor == max(0, before.cursor - 1), "Left moved \(before.cursor) to \(state.cursor)")
        case 7:
            handle(.right, &state)
            invariant(state.text == before.text && state.cursor == min(before.text.count, before.cursor + 1), "Right moved \(before.cursor) to \(state.cursor)")
        case 8, 9:
            handle(input.bool() ? .home : .control("a"), &state)
            invariant(state.text == before.text && state.cursor == 0 && !state.isSelected, "Home left the cursor at \(state.cursor)")
        case 10, 11:
            handle(input.bool() ? .end : .control("e"), &state)
            invariant(state.text == before.text && state.cursor == state.text.count, "End left the cursor at \(state.cursor)")
        case 12:
            handle(.control("u"), &state)
            invariant(state.text.isEmpty && state.cursor == 0, "Ctrl-U left \(state.text.debugDescription)")
        case 13:
            handle(.control("w"), &state)
            let kept = before.text.utf8.count - before.cursorUTF8
            invariant(state.text.utf8.suffix(kept).elementsEqual(before.text.utf8.suffix(kept)), "Ctrl-W changed the text after the cursor")
        case 14:
            let key = input.pick([Key.up, .down, .enter, .tab, .escape, .pageUp, .function(2), .control("x"), .resize])
            invariant(!state.handle(key) && state == before, "\(key) is not an editing key but changed the field")
        case 15:
            state.maxLength = input.int(below: 24)
        default:
            render(state, width: 1 + input.int(below: 40))
        }
    }

    static func handle(_ key: Key, _ state: inout TextInputState) {
        invariant(state.handle(key), "\(key) not handled")
    }

    /// Typing and pasting keep the text on both sides of the cursor and grow only within the limit.
    static func type(_ key: Key, into state: inout TextInputState) {
        let before = state
        handle(key, &state)
        let kept = before.isSelected ? "" : before.text
        let cursor = before.isSelected ? 0 : before.cursorUTF8
        invariant(state.text.utf8.starts(with: kept.utf8.prefix(cursor)), "typing changed the text before the cursor")
        invariant(state.text.count <= max(state.maxLength, kept.count), "typing grew the text past its limit")
        invariant(state.cursorUTF8 >= cursor, "typing moved the cursor back")
    }

    static func checkBackspace(_ before: TextInputState, _ after: TextInputState) {
        guard !before.isSelected else { return invariant(after.text.isEmpty, "Backspace kept the selected default") }
        let kept = before.text.utf8.count - before.cursorUTF8
        invariant(after.text.utf8.suffix(kept).elementsEqual(before.text.utf8.suffix(kept)), "Backspace changed the text after the cursor")
        invariant(before.cursor == 0 || after.text.utf8.count < before.text.utf8.count, "Backspace removed nothing")
    }

    static func checkDelete(_ before: TextInputState, _ after: TextInputState) {
        guard !before.isSelected else { return invariant(after.text.isEmpty, "Delete kept the selected default") }
        let kept = before.cursorUTF8
        invariant(after.text.utf8.prefix(kept).elementsEqual(before.text.utf8.prefix(kept)), "Delete changed the text before the cursor")
        invariant(before.cursor == before.text.count || after.text.utf8.count < before.text.utf8.count, "Delete removed nothing")
    }

    static func checkState(_ state: TextInputState) {
        let boundaries = Set(state.text.indices.map { state.text.utf8.distance(from: state.text.startIndex, to: $0) } + [state.text.utf8.count])
        invariant(boundaries.contains(state.cursorUTF8), "cursor at byte \(state.cursorUTF8) of \(state.text.debugDescription), inside a cluster")
        invariant((0...state.text.count).contains(state.cursor), "cursor \(state.cursor) outside the text")
        invariant(!state.text.unicodeScalars.contains(where: TextInputState.isControl), "control character in \(state.text.debugDescription)")
        invariant(!state.isSelected || !state.text.isEmpty, "an empty text selected")
    }

    /// Drawn at any width, the field shows one cursor (one run of cells: a cluster can take several)
    /// when there is room for it.
    static func render(_ state: TextInputState, width: Int) {
        var buffer = Buffer(width: width, height: 1)
        TextInput(state: state, cursorStyle: cursorStyle).render(in: Rect(x: 0, y: 0, width: width, height: 1), buffer: &buffer)
        let columns = buffer.cells.indices.filter { buffer.cells[$0].style.fg == cursorStyle.fg }
        let shown = "\(columns) of width \(width) for \(state.text.debugDescription)"
        invariant(width > 1 ? !columns.isEmpty : columns.isEmpty, "cursor cells \(shown)")
        invariant(columns.last.map { $0 - columns[0] + 1 == columns.count } ?? true, "cursor in pieces: \(shown)")
    }
}

extension TextInputState {
    var cursorUTF8: Int { text.utf8.distance(from: text.startIndex, to: cursorIndex) }
}

/// Text made of the pieces grapheme breaking is hard on.
enum Pieces {
    static let scalars: [Unicode.Scalar] = [
        "a", "e", " ", "\u{301}", "\u{200D}", "\u{FE0F}", "👍", "\u{1F3FD}", "🇫", "🇷", "\r", "\n", "\t", "\u{0}", "\u{7F}",
        "\u{85}", "\u{600}", "\u{1100}", "\u{1161}", "\u{11A8}", "\u{AC00}", "中", "\u{903}", "\u{200B}", "\u{2028}", "\u{FEFF}",
        "👨", "\u{E0061}", "\u{1F3F4}", "\u{E007F}",
    ]

    static func scalar(_ input: inout FuzzInput) -> Unicode.Scalar {
        if input.int(below: 4) != 0 { return input.pick(scalars) }
        let value = (UInt32(input.byte()) << 16 | UInt32(input.byte()) << 8 | UInt32(input.byte())) % 0x110000
        return Unicode.Scalar(value) ?? "\u{FFFD}"
    }

    static func text(_ input: inout FuzzInput) -> String {
        var text = String.UnicodeScalarView()
        for _ in 0..<input.int(below: 12) { text.append(scalar(&input)) }
        return String(text)
    }

    /// One grapheme cluster, as a terminal key can carry.
    static func character(_ input: inout FuzzInput) -> Character {
        var text = String.UnicodeScalarView()
        for _ in 0...input.int(below: 3) { text.append(scalar(&input)) }
        return String(text).first!
    }
}
