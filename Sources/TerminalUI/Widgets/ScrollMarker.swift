/// Where a scrolled list is: a block on the right edge of its rows, in a column of its own so that
/// it never covers a character of them.
public enum ScrollMarker {
    /// Whether `count` lines in `visible` rows need the marker.
    public static func shown(count: Int, visible: Int, width: Int) -> Bool { count > visible && visible > 0 && width > 1 }

    /// The rows' area without the marker's column when the marker is shown.
    public static func content(_ area: Rect, count: Int, visible: Int) -> Rect {
        guard shown(count: count, visible: visible, width: area.width) else { return area }
        return Rect(x: area.x, y: area.y, width: area.width - 1, height: area.height)
    }

    /// Draws the marker for rows `rows` (the area they take) showing lines from `top` of `count`.
    /// Without weight and slant, which a block does not show: a scroll then redraws it without
    /// switching them on and off again.
    public static func draw(rows: Rect, top: Int, count: Int, style: Style, buffer: inout Buffer) {
        guard shown(count: count, visible: rows.height, width: rows.width) else { return }
        let position = rows.y + (rows.height - 1) * top / max(1, count - rows.height)
        var plain = style
        plain.modifiers.subtract([.bold, .italic])
        buffer[rows.right - 1, min(position, rows.bottom - 1)] = Cell("▐", style: plain)
    }
}
