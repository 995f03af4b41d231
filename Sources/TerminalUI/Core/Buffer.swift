/// One screen cell: a grapheme (empty for the second half of a wide character) and its style.
public struct Cell: Sendable, Equatable {
    public var symbol: String
    public var style: Style

    public init(_ symbol: String = " ", style: Style = .plain) {
        self.symbol = symbol
        self.style = style
    }

    public static let blank = Cell()
    /// The cell covered by the right half of a wide character.
    public var isContinuation: Bool { symbol.isEmpty }
}

/// A grid of cells that widgets draw into; the terminal shows the difference between two buffers.
public struct Buffer: Sendable, Equatable {
    public private(set) var area: Rect
    public private(set) var cells: [Cell]

    public init(area: Rect, filling cell: Cell = .blank) {
        self.area = area
        self.cells = Array(repeating: cell, count: area.area)
    }

    public init(width: Int, height: Int) {
        self.init(area: Rect(x: 0, y: 0, width: width, height: height))
    }

    func index(_ x: Int, _ y: Int) -> Int? {
        guard area.contains(x: x, y: y) else { return nil }
        return (y - area.y) * area.width + (x - area.x)
    }

    public subscript(x: Int, y: Int) -> Cell {
        get { index(x, y).map { cells[$0] } ?? .blank }
        set { if let i = index(x, y) { cells[i] = newValue } }
    }

    public mutating func fill(_ rect: Rect, with style: Style, symbol: String = " ") {
        let clipped = rect.intersection(area)
        guard !clipped.isEmpty else { return }
        for y in clipped.y..<clipped.bottom {
            for x in clipped.x..<clipped.right {
                self[x, y] = Cell(symbol, style: style)
            }
        }
    }

    /// Lays `style` over the existing styles of `rect` (keeps symbols).
    public mutating func restyle(_ rect: Rect, _ style: Style) {
        let clipped = rect.intersection(area)
        guard !clipped.isEmpty else { return }
        for y in clipped.y..<clipped.bottom {
            for x in clipped.x..<clipped.right {
                if let i = index(x, y) { cells[i].style = cells[i].style.patched(with: style) }
            }
        }
    }

    /// Writes text from (x, y), clipped to `maxWidth` cells and to the buffer; returns the x after it.
    @discardableResult
    public mutating func write(_ text: String, x: Int, y: Int, style: Style = .plain, maxWidth: Int? = nil) -> Int {
        guard y >= area.y, y < area.bottom else { return x }
        let limit = min(area.right, maxWidth.map { x + max(0, $0) } ?? area.right)
        var cx = x
        // One cell per scalar of non-zero width; zero-width scalars (combining marks) join the cell
        // before, so a cluster takes exactly the cells `TextWidth.of` counts for it.
        for scalar in TextWidth.sanitize(text).unicodeScalars {
            let width = TextWidth.of(scalar)
            if width == 0 {
                if cx > x, let i = index(cx - 1, y), !cells[i].isContinuation { cells[i].symbol.unicodeScalars.append(scalar) }
                continue
            }
            guard cx + width <= limit else { break }
            if cx >= area.x {
                // Writing over half of a wide character blanks its other half.
                if let i = index(cx, y), cells[i].isContinuation, let left = index(cx - 1, y) { cells[left] = Cell(" ", style: cells[left].style) }
                if let i = index(cx + width, y), cells[i].isContinuation { cells[i] = Cell(" ", style: cells[i].style) }
                self[cx, y] = Cell(String(scalar), style: style)
                if width == 2 { self[cx + 1, y] = Cell("", style: style) }
            }
            cx += width
        }
        return cx
    }

    /// Text with `…` when it does not fit in `width`.
    @discardableResult
    public mutating func write(truncating text: String, x: Int, y: Int, width: Int, style: Style = .plain) -> Int {
        write(TextWidth.truncate(TextWidth.sanitize(text), to: width), x: x, y: y, style: style, maxWidth: width)
    }

    /// The screen as lines of text (wide characters once), trailing spaces trimmed.
    public var text: String {
        var lines: [String] = []
        for row in 0..<area.height {
            var line = ""
            for column in 0..<area.width {
                let cell = cells[row * area.width + column]
                line += cell.symbol
            }
            while line.hasSuffix(" ") { line.removeLast() }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    /// Replaces a run of cells (by index into `cells`) with as many others.
    mutating func replaceCells(_ range: Range<Int>, with replacement: ArraySlice<Cell>) {
        cells.replaceSubrange(range, with: replacement)
    }

    /// Cells that differ from `previous` (all of them when the sizes differ), in row order.
    /// What a blank cell's foreground, weight and slant are cannot be seen (its background,
    /// underline and reverse can). A run of blanks before a visible cell takes the style of the cell
    /// after it, or else of the cell before it, where only those unseen parts differ: a line in one
    /// colour then reaches the terminal as one run instead of a colour change around every gap.
    /// Blanks that end a row keep their own: they match what an erased line holds.
    public mutating func mergeInvisibleStyles() {
        let unseen: Modifiers = [.bold, .dim, .italic]
        func isBlank(_ cell: Cell) -> Bool { cell.symbol == " " && !cell.style.modifiers.contains(.underline) && !cell.style.modifiers.contains(.reverse) }
        func differsUnseen(_ blank: Style, _ other: Style) -> Bool {
            blank.bg == other.bg && blank.modifiers.subtracting(unseen) == other.modifiers.subtracting(unseen)
        }
        for row in 0..<area.height {
            let start = row * area.width, end = start + area.width
            var i = start
            while i < end {
                guard isBlank(cells[i]) else { i += 1; continue }
                var next = i
                while next < end, isBlank(cells[next]) { next += 1 }
                if next < end {
                    let after = cells[next].style
                    let before = i > start ? cells[i - 1].style : nil
                    for j in i..<next {
                        if differsUnseen(cells[j].style, after) {
                            cells[j].style = after
                        } else if let before, differsUnseen(cells[j].style, before) {
                            cells[j].style = before
                        }
                    }
                }
                i = next
            }
        }
    }

    public func diff(from previous: Buffer) -> [(x: Int, y: Int, cell: Cell)] {
        var changes: [(x: Int, y: Int, cell: Cell)] = []
        let sameShape = previous.area == area
        for row in 0..<area.height {
            for column in 0..<area.width {
                let i = row * area.width + column
                let cell = cells[i]
                if !sameShape || previous.cells[i] != cell {
                    changes.append((area.x + column, area.y + row, cell))
                }
            }
        }
        return changes
    }
}
