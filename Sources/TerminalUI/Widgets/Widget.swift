/// Anything that draws itself into a rectangle of a buffer.
public protocol Widget {
    func render(in area: Rect, buffer: inout Buffer)
}

/// A border with a title; `inner` is the area inside it.
public struct Block: Widget {
    public var title: String?
    public var style: Style
    public var titleStyle: Style
    public var fill: Style?

    public init(title: String? = nil, style: Style = .plain, titleStyle: Style = .plain, fill: Style? = nil) {
        self.title = title
        self.style = style
        self.titleStyle = titleStyle
        self.fill = fill
    }

    public static func inner(_ area: Rect) -> Rect { area.inset(by: 1) }

    public func render(in area: Rect, buffer: inout Buffer) {
        guard area.width >= 2, area.height >= 2 else { return }
        if let fill { buffer.fill(area, with: fill) }
        let right = area.right - 1
        let bottom = area.bottom - 1
        buffer[area.x, area.y] = Cell("╭", style: style)
        buffer[right, area.y] = Cell("╮", style: style)
        buffer[area.x, bottom] = Cell("╰", style: style)
        buffer[right, bottom] = Cell("╯", style: style)
        for x in (area.x + 1)..<right {
            buffer[x, area.y] = Cell("─", style: style)
            buffer[x, bottom] = Cell("─", style: style)
        }
        for y in (area.y + 1)..<bottom {
            buffer[area.x, y] = Cell("│", style: style)
            buffer[right, y] = Cell("│", style: style)
        }
        if let title, area.width > 4 {
            buffer.write(truncating: " \(title) ", x: area.x + 2, y: area.y, width: area.width - 4, style: titleStyle)
        }
    }
}

/// Lines of styled text, wrapped or cut to the width, scrolled by `offset` lines.
public struct Paragraph: Widget {
    public struct Span: Sendable {
        public var text: String
        public var style: Style
        public init(_ text: String, _ style: Style = .plain) {
            self.text = text
            self.style = style
        }
    }

    public var lines: [[Span]]
    public var wrap: Bool
    public var offset: Int
    /// Wrapped lines start under the text of their first line, past its leading spaces, so that an
    /// indented entry still reads as one.
    public var hangingIndent: Bool
    /// A line made of a label span then its value wraps under the value, so a form's rows keep
    /// their column; a line of one span wraps to the left edge.
    public var hangsUnderValue: Bool

    public init(lines: [[Span]], wrap: Bool = true, offset: Int = 0, hangingIndent: Bool = false, hangsUnderValue: Bool = false) {
        self.lines = lines
        self.wrap = wrap
        self.offset = offset
        self.hangingIndent = hangingIndent
        self.hangsUnderValue = hangsUnderValue
    }

    public init(_ text: String, style: Style = .plain, wrap: Bool = true) {
        self.init(lines: text.split(separator: "\n", omittingEmptySubsequences: false).map { [Span(String($0), style)] }, wrap: wrap)
    }

    /// The lines after wrapping to `width`.
    public func layout(width: Int) -> [[Span]] {
        guard wrap, width > 0 else { return lines }
        var result: [[Span]] = []
        for line in lines {
            var current: [Span] = []
            var used = 0
            let leading = hangsUnderValue && line.count > 1
                ? TextWidth.of(line[0].text)
                : line.first.map { $0.text.prefix { $0 == " " }.count } ?? 0
            // Never so deep that a wrapped line has no room for text.
            let indent = (hangingIndent || hangsUnderValue) && leading < width / 2 ? String(repeating: " ", count: leading) : ""
            for span in line {
                var rest = Substring(span.text)
                while !rest.isEmpty {
                    let room = width - used
                    if TextWidth.of(rest) <= room {
                        current.append(Span(String(rest), span.style))
                        used += TextWidth.of(rest)
                        rest = ""
                    } else {
                        var cut = rest.startIndex
                        var w = 0
                        var lastSpace: Substring.Index?
                        while cut < rest.endIndex, w + TextWidth.of(rest[cut]) <= room {
                            if rest[cut] == " " { lastSpace = cut }
                            w += TextWidth.of(rest[cut])
                            cut = rest.index(after: cut)
                        }
                        if let lastSpace, lastSpace > rest.startIndex, cut < rest.endIndex { cut = rest.index(after: lastSpace) }
                        // Nothing fits on a line holding nothing yet (past its indent): one character goes, so it ends.
                        let fresh = used == 0 || (!indent.isEmpty && used == indent.count && current.count == 1)
                        if cut == rest.startIndex && fresh { cut = rest.index(after: cut) }
                        current.append(Span(String(rest[rest.startIndex..<cut]), span.style))
                        result.append(current)
                        current = indent.isEmpty ? [] : [Span(indent, span.style)]
                        used = indent.count
                        rest = rest[cut...]
                        while rest.first == " " { rest = rest.dropFirst() }
                    }
                }
            }
            result.append(current)
        }
        return result
    }

    public func render(in area: Rect, buffer: inout Buffer) {
        let laid = layout(width: area.width)
        for (row, line) in laid.dropFirst(max(0, offset)).prefix(area.height).enumerated() {
            var x = area.x
            for span in line {
                let room = area.right - x
                guard room > 0 else { break }
                // An unwrapped line cut at the edge ends in "…", as a cut value does elsewhere.
                var shown = Substring(span.text)
                while shown.last == " " { shown = shown.dropLast() }
                if !wrap && TextWidth.of(shown) > room {
                    buffer.write(truncating: span.text, x: x, y: area.y + row, width: room, style: span.style)
                    break
                }
                x = buffer.write(span.text, x: x, y: area.y + row, style: span.style, maxWidth: room)
            }
        }
    }
}
