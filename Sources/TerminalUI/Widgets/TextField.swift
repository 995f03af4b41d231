/// A single-line editable text: the cursor moves and deletes by grapheme cluster (a letter with its
/// accents, an emoji with its modifiers, a flag), whatever the terminal sent, so no key can leave the
/// cursor inside a cluster or past the end.
public struct TextInputState: Sendable, Equatable {
    public private(set) var text: String
    /// Where the cursor is, as a UTF-8 offset into `text`, always on a cluster boundary.
    private var cursorOffset: Int
    public var maxLength: Int
    /// A pre-filled value that the first typed character replaces (as a selected default in a form).
    public private(set) var isSelected: Bool

    /// - Parameter selected: the text is a default that typing replaces; editing keys keep it.
    public init(text: String = "", maxLength: Int = 512, selected: Bool = false) {
        let clean = String(Self.clean(text).prefix(max(0, maxLength)))
        self.text = clean
        self.cursorOffset = clean.utf8.count
        self.maxLength = maxLength
        self.isSelected = selected && !clean.isEmpty
    }

    /// The cursor as a count of grapheme clusters before it.
    public var cursor: Int { text[..<cursorIndex].count }

    var cursorIndex: String.Index { text.utf8.index(text.utf8.startIndex, offsetBy: cursorOffset) }

    /// Applies an editing key; returns false for keys it does not handle.
    public mutating func handle(_ key: Key) -> Bool {
        switch key {
        case .character(let character):
            replaceSelection()
            insert(String(character))
        case .paste(let pasted):
            replaceSelection()
            // Pasted text becomes one line: newlines and tabs turn into spaces at its ends trimmed.
            insert(Self.oneLine(pasted))
        case .backspace:
            if isSelected { replaceSelection(); return true }
            let end = cursorIndex
            guard end > text.startIndex else { return true }
            remove(text.index(before: end)..<end)
        case .delete:
            if isSelected { replaceSelection(); return true }
            let start = cursorIndex
            guard start < text.endIndex else { return true }
            remove(start..<text.index(after: start))
        case .left:
            isSelected = false
            if cursorIndex > text.startIndex { moveCursor(to: text.index(before: cursorIndex)) }
        case .right:
            isSelected = false
            if cursorIndex < text.endIndex { moveCursor(to: text.index(after: cursorIndex)) }
        case .home, .control("a"):
            isSelected = false
            moveCursor(to: text.startIndex)
        case .end, .control("e"):
            isSelected = false
            moveCursor(to: text.endIndex)
        case .control("u"):
            isSelected = false
            text = ""
            cursorOffset = 0
        case .control("w"):
            isSelected = false
            let end = cursorIndex
            var start = end
            while start > text.startIndex, text[text.index(before: start)] == " " { start = text.index(before: start) }
            while start > text.startIndex, text[text.index(before: start)] != " " { start = text.index(before: start) }
            remove(start..<end)
        default:
            return false
        }
        return true
    }

    /// Makes the text a default again, replaced by the next typed character (a form come back to).
    public mutating func select() {
        isSelected = !text.isEmpty
    }

    private mutating func replaceSelection() {
        guard isSelected else { return }
        isSelected = false
        text = ""
        cursorOffset = 0
    }

    private mutating func insert(_ piece: String) {
        let clean = Self.clean(piece)
        guard !clean.isEmpty else { return }
        let clipped: String
        // A cluster takes at least one byte, so while the bytes fit the clusters fit: counting
        // clusters walks the whole text, which would make every key cost the length of the field.
        if text.utf8.count + clean.utf8.count <= maxLength {
            clipped = clean
        } else {
            let room = maxLength - text.count
            guard room > 0 else { return }
            clipped = clean.count <= room ? clean : String(clean.prefix(room))
        }
        let at = cursorIndex
        let anchor = offset(of: at > text.startIndex ? text.index(before: at) : text.startIndex)
        let target = cursorOffset + clipped.utf8.count
        text.insert(contentsOf: clipped, at: at)
        // Joining can merge clusters (an accent after a letter, two halves of a flag): the cursor goes
        // to the end of the cluster the insertion ended in, and the length limit still holds.
        cursorOffset = boundary(from: anchor, atOrAfter: target)
        if text.utf8.count > maxLength, text.count > maxLength {
            text = String(text.prefix(maxLength))
            cursorOffset = min(cursorOffset, text.utf8.count)
        }
    }

    private mutating func remove(_ range: Range<String.Index>) {
        let anchor = offset(of: range.lowerBound > text.startIndex ? text.index(before: range.lowerBound) : text.startIndex)
        let start = offset(of: range.lowerBound)
        text.removeSubrange(range)
        // Removing can merge the clusters on either side: stay at the start of the merged one.
        cursorOffset = boundary(from: anchor, atOrBefore: start)
    }

    private mutating func moveCursor(to index: String.Index) {
        cursorOffset = offset(of: index)
    }

    private func offset(of index: String.Index) -> Int {
        text.utf8.distance(from: text.utf8.startIndex, to: index)
    }

    // Boundaries before an edit stay boundaries after it (breaking looks back, not ahead), so walks
    // start at the cluster before the edit instead of at the start of the text.

    private func boundary(from anchor: Int, atOrAfter target: Int) -> Int {
        var index = text.utf8.index(text.utf8.startIndex, offsetBy: min(anchor, text.utf8.count))
        while index < text.endIndex, offset(of: index) < target { index = text.index(after: index) }
        return offset(of: index)
    }

    private func boundary(from anchor: Int, atOrBefore target: Int) -> Int {
        var index = text.utf8.index(text.utf8.startIndex, offsetBy: min(anchor, text.utf8.count))
        var last = offset(of: index)
        while index < text.endIndex {
            index = text.index(after: index)
            let next = offset(of: index)
            if next > target { break }
            last = next
        }
        return last
    }

    /// Drops what a field cannot hold: control characters (C0, DEL, C1) and lone surrogates' stand-ins.
    static func clean(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: text.unicodeScalars.lazy.filter { !isControl($0) })
        return String(scalars)
    }

    static func oneLine(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x09, 0x0A, 0x0D: scalars.append(" ")
            default: if !isControl(scalar) { scalars.append(scalar) }
            }
        }
        // Spaces at the ends go (tabs and newlines are spaces by now); a slice keeps this linear.
        func isSpace(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.generalCategory == .spaceSeparator }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }), let last = scalars.lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(scalars[first...last])
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value)
    }
}

/// Draws a `TextInputState` on one row, scrolled so the cursor stays visible; only the visible part
/// of the text is measured, so a field holding a megabyte draws as fast as one holding a word.
public struct TextInput: Widget {
    public var state: TextInputState
    public var style: Style
    public var cursorStyle: Style
    public var placeholder: String
    public var placeholderStyle: Style
    public var showCursor: Bool

    public init(state: TextInputState, style: Style = .plain, cursorStyle: Style = Style(modifiers: .reverse),
                placeholder: String = "", placeholderStyle: Style = Style(modifiers: .dim), showCursor: Bool = true) {
        self.state = state
        self.style = style
        self.cursorStyle = cursorStyle
        self.placeholder = placeholder
        self.placeholderStyle = placeholderStyle
        self.showCursor = showCursor
    }

    public func render(in area: Rect, buffer: inout Buffer) {
        guard area.width > 1, area.height > 0 else { return }
        buffer.fill(Rect(x: area.x, y: area.y, width: area.width, height: 1), with: style)
        let text = state.text
        if text.isEmpty {
            buffer.write(truncating: placeholder, x: area.x + 1, y: area.y, width: area.width - 1, style: style.patched(with: placeholderStyle))
        }
        // One cell stays free for the cursor at the end of the text.
        let room = area.width - 1
        let cursor = state.cursorIndex
        var start = cursor
        var used = 0
        while start > text.startIndex {
            let previous = text.index(before: start)
            let width = TextWidth.of(text[previous])
            if used + width > room - 1 { break }
            used += width
            start = previous
        }
        let textStyle = state.isSelected ? style.patched(with: Style(modifiers: .reverse)) : style
        var x = area.x
        var index = start
        var cursorX = area.x + used
        var under = " "
        while index < text.endIndex {
            let character = text[index]
            let width = TextWidth.of(character)
            if index == cursor {
                cursorX = x
                if width > 0 { under = String(character) }
            }
            guard x + width <= area.x + room else { break }
            x = buffer.write(String(character), x: x, y: area.y, style: textStyle, maxWidth: area.x + room - x)
            index = text.index(after: index)
        }
        if showCursor {
            buffer.write(under, x: cursorX, y: area.y, style: style.patched(with: cursorStyle), maxWidth: 2)
        }
    }
}
