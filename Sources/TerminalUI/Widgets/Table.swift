/// A table that draws only the rows it shows, so ten thousand rows cost what forty do.
public struct Table: Widget {
    public struct Column: Sendable {
        /// Where a cell too wide for its column is cut.
        public enum Cut: Sendable {
            case end
            /// Keeps both ends: com.example.coins.100 and coins.1000 stay distinct.
            case middle
        }

        public var title: String
        public var width: Constraint
        public var alignRight: Bool
        public var cut: Cut
        public init(_ title: String, _ width: Constraint, alignRight: Bool = false, cut: Cut = .end) {
            self.title = title
            self.width = width
            self.alignRight = alignRight
            self.cut = cut
        }
    }

    public var columns: [Column]
    public var rowCount: Int
    /// Cells of row `index` with an optional style for the row.
    public var row: (Int) -> (cells: [String], style: Style?)
    public var selected: Int?
    public var offset: Int
    public var headerStyle: Style
    public var selectedStyle: Style
    public var style: Style

    public init(
        columns: [Column], rowCount: Int, selected: Int?, offset: Int, style: Style = .plain, headerStyle: Style = .plain,
        selectedStyle: Style = Style(modifiers: .reverse), row: @escaping (Int) -> (cells: [String], style: Style?)
    ) {
        self.columns = columns
        self.rowCount = rowCount
        self.row = row
        self.selected = selected
        self.offset = offset
        self.style = style
        self.headerStyle = headerStyle
        self.selectedStyle = selectedStyle
    }

    /// Rows visible in a table of `height` lines (one is the header).
    public static func visibleRows(height: Int) -> Int { max(0, height - 1) }

    /// The first row to show so `selected` stays visible, given the previous offset.
    public static func scrolledOffset(selected: Int, offset: Int, visible: Int, count: Int) -> Int {
        guard visible > 0, count > 0 else { return 0 }
        var top = min(max(0, offset), max(0, count - visible))
        if selected < top { top = selected }
        if selected >= top + visible { top = selected - visible + 1 }
        return max(0, top)
    }

    public func render(in area: Rect, buffer: inout Buffer) {
        guard area.height > 0, area.width > 0 else { return }
        let columnsArea = ScrollMarker.content(area, count: rowCount, visible: Self.visibleRows(height: area.height))
        let widths = Layout.split(columnsArea, .horizontal, columns.map(\.width), spacing: 1).map(\.width)
        func drawRow(_ cells: [String], y: Int, style: Style) {
            var x = area.x
            for (index, column) in columns.enumerated() {
                let width = widths[index]
                let cell = index < cells.count ? TextWidth.sanitize(cells[index]) : ""
                let text = column.cut == .middle ? TextWidth.truncateMiddle(cell, to: width) : TextWidth.truncate(cell, to: width)
                let pad = column.alignRight ? max(0, width - TextWidth.of(text)) : 0
                buffer.write(text, x: x + pad, y: y, style: style, maxWidth: width - pad)
                x += width + 1
            }
        }
        buffer.fill(Rect(x: area.x, y: area.y, width: area.width, height: 1), with: headerStyle)
        drawRow(columns.map(\.title), y: area.y, style: headerStyle)
        let visible = Self.visibleRows(height: area.height)
        let top = selected.map { Self.scrolledOffset(selected: $0, offset: offset, visible: visible, count: rowCount) } ?? offset
        for line in 0..<visible {
            let index = top + line
            guard index < rowCount else { break }
            let (cells, rowStyle) = row(index)
            let y = area.y + 1 + line
            var lineStyle = style.patched(with: rowStyle ?? .plain)
            if index == selected {
                lineStyle = lineStyle.patched(with: selectedStyle)
                buffer.fill(Rect(x: area.x, y: y, width: area.width, height: 1), with: lineStyle)
            }
            drawRow(cells, y: y, style: lineStyle)
        }
        let rows = Rect(x: area.x, y: area.y + 1, width: area.width, height: visible)
        ScrollMarker.draw(rows: rows, top: top, count: rowCount, style: headerStyle, buffer: &buffer)
    }
}

/// A row of tab titles with the selected one highlighted.
public struct Tabs: Widget {
    public var titles: [String]
    public var selected: Int
    public var style: Style
    public var selectedStyle: Style

    public init(titles: [String], selected: Int, style: Style = .plain, selectedStyle: Style = Style(modifiers: .reverse)) {
        self.titles = titles
        self.selected = selected
        self.style = style
        self.selectedStyle = selectedStyle
    }

    /// The label of each tab at `width`: narrow screens shorten every title evenly, keeping the
    /// numbers (the tenth tab's is 0, the digit key after 9).
    public static func labels(_ titles: [String], width: Int) -> [String] {
        let full = titles.enumerated().map { " \(($0.offset + 1) % 10) \($0.element) " }
        guard full.map({ TextWidth.of($0) }).reduce(0, +) > width, !titles.isEmpty else { return full }
        let room = max(0, width / titles.count - 4)
        return titles.enumerated().map { " \(($0.offset + 1) % 10) \(TextWidth.truncate($0.element, to: room, ellipsis: false)) " }
    }

    /// The tab under column `x` (relative to the bar's left edge), if any.
    public static func index(at x: Int, titles: [String], width: Int) -> Int? {
        var left = 0
        for (index, label) in labels(titles, width: width).enumerated() {
            let right = left + TextWidth.of(label)
            if x >= left && x < right { return index }
            left = right
        }
        return nil
    }

    public func render(in area: Rect, buffer: inout Buffer) {
        buffer.fill(Rect(x: area.x, y: area.y, width: area.width, height: 1), with: style)
        let labels = Self.labels(titles, width: area.width)
        var x = area.x
        for (index, label) in labels.enumerated() {
            guard x + TextWidth.of(label) <= area.right else { break }
            x = buffer.write(label, x: x, y: area.y, style: index == selected ? selectedStyle : style)
        }
    }
}
