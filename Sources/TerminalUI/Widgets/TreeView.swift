/// A foldable tree (used for decoded JSON): nodes with a label, an optional value and children.
public struct TreeNode: Sendable, Equatable {
    public var label: String
    public var value: String?
    public var children: [TreeNode]
    /// Stable identity for fold state, such as a JSON path.
    public var path: String

    public init(label: String, value: String? = nil, children: [TreeNode] = [], path: String) {
        self.label = label
        self.value = value
        self.children = children
        self.path = path
    }

    /// One visible line of the tree given which paths are folded.
    public struct Line: Sendable, Equatable {
        public var depth: Int
        public var node: TreeNode
        public var folded: Bool
    }

    public func lines(folded: Set<String>, depth: Int = 0) -> [Line] {
        let isFolded = folded.contains(path)
        var result = [Line(depth: depth, node: self, folded: isFolded)]
        if !isFolded {
            for child in children { result += child.lines(folded: folded, depth: depth + 1) }
        }
        return result
    }
}

public struct TreeView: Widget {
    public var lines: [TreeNode.Line]
    public var selected: Int?
    public var offset: Int
    public var keyStyle: Style
    public var valueStyle: Style
    public var selectedStyle: Style

    public init(lines: [TreeNode.Line], selected: Int?, offset: Int, keyStyle: Style, valueStyle: Style, selectedStyle: Style) {
        self.lines = lines
        self.selected = selected
        self.offset = offset
        self.keyStyle = keyStyle
        self.valueStyle = valueStyle
        self.selectedStyle = selectedStyle
    }

    public func render(in whole: Rect, buffer: inout Buffer) {
        let top = selected.map { Table.scrolledOffset(selected: $0, offset: offset, visible: whole.height, count: lines.count) } ?? offset
        let area = ScrollMarker.content(whole, count: lines.count, visible: whole.height)
        ScrollMarker.draw(rows: whole, top: top, count: lines.count, style: keyStyle, buffer: &buffer)
        for row in 0..<area.height {
            let index = top + row
            guard index < lines.count else { break }
            let line = lines[index]
            let y = area.y + row
            let isSelected = index == selected
            if isSelected { buffer.fill(Rect(x: area.x, y: y, width: area.width, height: 1), with: selectedStyle) }
            let marker = line.node.children.isEmpty ? "  " : (line.folded ? "▸ " : "▾ ")
            var x = buffer.write(String(repeating: "  ", count: line.depth) + marker, x: area.x, y: y,
                                 style: isSelected ? selectedStyle : keyStyle, maxWidth: area.width)
            x = buffer.write(line.node.label, x: x, y: y, style: isSelected ? selectedStyle : keyStyle, maxWidth: area.right - x)
            if let value = line.node.value {
                x = buffer.write(": ", x: x, y: y, style: isSelected ? selectedStyle : keyStyle, maxWidth: area.right - x)
                buffer.write(truncating: value, x: x, y: y, width: area.right - x, style: isSelected ? selectedStyle : valueStyle)
            } else if line.folded {
                buffer.write(" … \(line.node.children.count) items", x: x, y: y, style: isSelected ? selectedStyle : valueStyle, maxWidth: area.right - x)
            }
        }
    }
}
