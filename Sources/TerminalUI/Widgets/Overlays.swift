/// A centred box drawn over everything else, with its own cleared background.
public struct Modal: Widget {
    public var title: String
    public var lines: [[Paragraph.Span]]
    public var style: Style
    public var borderStyle: Style
    public var width: Int
    public var height: Int
    /// Rows of a label then a value wrap under the value (see `Paragraph.hangsUnderValue`).
    public var hangsUnderValue: Bool

    public init(title: String, lines: [[Paragraph.Span]], style: Style, borderStyle: Style, width: Int, height: Int? = nil,
                hangsUnderValue: Bool = false) {
        self.title = title
        self.lines = lines
        self.style = style
        self.borderStyle = borderStyle
        self.width = width
        self.height = height ?? 0
        self.hangsUnderValue = hangsUnderValue
    }

    private var paragraph: Paragraph { Paragraph(lines: lines, hangsUnderValue: hangsUnderValue) }

    /// The rectangle the modal occupies inside `area`.
    public func frame(in area: Rect) -> Rect {
        // Measured at the width the text is drawn with: inside the border and its one-cell margins.
        let innerWidth = min(width, area.width - 2) - 4
        let wanted = height > 0 ? height : paragraph.layout(width: max(1, innerWidth)).count + 2
        return area.centered(width: min(width, area.width - 2), height: min(wanted, area.height - 2))
    }

    /// Whether every line shows in `area`, none cut off at the bottom.
    public func fits(in area: Rect) -> Bool {
        let innerWidth = min(width, area.width - 2) - 4
        guard innerWidth >= 1 else { return false }
        let wanted = height > 0 ? height : paragraph.layout(width: innerWidth).count + 2
        return wanted <= area.height - 2
    }

    public func render(in area: Rect, buffer: inout Buffer) {
        let box = frame(in: area)
        guard box.width >= 4, box.height >= 3 else { return }
        buffer.fill(box, with: style)
        Block(title: title, style: borderStyle, titleStyle: borderStyle.bold).render(in: box, buffer: &buffer)
        paragraph.render(in: Block.inner(box).inset(horizontal: 1), buffer: &buffer)
    }
}

/// A short message in the bottom-right corner.
public struct Toast: Widget {
    public var message: String
    public var style: Style

    public init(message: String, style: Style) {
        self.message = message
        self.style = style
    }

    public func render(in area: Rect, buffer: inout Buffer) {
        let text = " \(TextWidth.truncate(TextWidth.sanitize(message), to: max(1, area.width - 4))) "
        let width = TextWidth.of(text)
        guard area.height >= 3, width < area.width else { return }
        let x = area.right - width - 1
        let y = area.bottom - 3
        buffer.write(text, x: x, y: y, style: style)
    }
}

/// A one-cell activity indicator.
public enum Spinner {
    public static let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
    public static func frame(_ tick: Int) -> String { frames[abs(tick) % frames.count] }
}

/// A line of `key label` hints, cut to fit.
public struct KeyHints: Widget {
    public var hints: [(key: String, label: String)]
    public var keyStyle: Style
    public var style: Style

    public init(hints: [(key: String, label: String)], keyStyle: Style, style: Style) {
        self.hints = hints
        self.keyStyle = keyStyle
        self.style = style
    }

    public func render(in area: Rect, buffer: inout Buffer) {
        buffer.fill(Rect(x: area.x, y: area.y, width: area.width, height: 1), with: style)
        var x = area.x + 1
        for hint in hints {
            let width = TextWidth.of(hint.key) + 1 + TextWidth.of(hint.label) + 2
            guard x + width <= area.right else { break }
            x = buffer.write(hint.key, x: x, y: area.y, style: style.patched(with: keyStyle))
            x = buffer.write(" " + hint.label + "  ", x: x, y: area.y, style: style)
        }
    }
}

/// Where the user is: `Customer › Subscriptions › 2000000400000044`.
public struct Breadcrumbs: Widget {
    public var parts: [String]
    public var style: Style
    public var lastStyle: Style

    public init(parts: [String], style: Style, lastStyle: Style) {
        self.parts = parts
        self.style = style
        self.lastStyle = lastStyle
    }

    public func render(in area: Rect, buffer: inout Buffer) {
        var x = area.x
        for (index, part) in parts.enumerated() {
            let isLast = index == parts.count - 1
            x = buffer.write(part, x: x, y: area.y, style: isLast ? lastStyle : style, maxWidth: area.right - x)
            if !isLast { x = buffer.write(" › ", x: x, y: area.y, style: style, maxWidth: area.right - x) }
        }
    }
}

/// Lines of items, one per row, with an optional selected item; long lists scroll to keep it visible.
public struct List: Widget {
    public var items: [(text: String, style: Style)]
    public var selected: Int?
    public var selectedStyle: Style

    public init(items: [(text: String, style: Style)], selected: Int? = nil, selectedStyle: Style = Style(modifiers: .reverse)) {
        self.items = items
        self.selected = selected
        self.selectedStyle = selectedStyle
    }

    public func render(in area: Rect, buffer: inout Buffer) {
        guard area.height > 0 else { return }
        // Without a selection the newest (last) items stay in view.
        let top = selected.map { Table.scrolledOffset(selected: $0, offset: 0, visible: area.height, count: items.count) }
            ?? max(0, items.count - area.height)
        for row in 0..<area.height {
            let index = top + row
            guard index < items.count else { break }
            let style = index == selected ? items[index].style.patched(with: selectedStyle) : items[index].style
            buffer.write(truncating: items[index].text, x: area.x, y: area.y + row, width: area.width, style: style)
        }
    }
}
