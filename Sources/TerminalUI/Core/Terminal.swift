/// Where frames go: a real terminal or a buffer in a test.
public protocol Backend: AnyObject {
    var size: (width: Int, height: Int) { get }
    /// Draws changed cells; continuation cells (right halves of wide characters) are skipped.
    func draw(_ changes: [(x: Int, y: Int, cell: Cell)])
    func flush()
    func clear()
    /// Whether `scroll` can move whole rows on this terminal.
    var scrollsRows: Bool { get }
    /// The characters this terminal can show (ASCII under a locale that is not UTF-8).
    var glyphs: GlyphSet { get }
    /// Moves the rows of `move` on the screen now, before the changes against the moved frame are
    /// drawn; false when it could not (the frame is then drawn without it).
    func scroll(_ move: RowScroll) -> Bool
}

extension Backend {
    public var scrollsRows: Bool { false }
    public var glyphs: GlyphSet { .unicode }
    public func scroll(_ move: RowScroll) -> Bool { false }
}

/// Keeps the last frame and sends only what changed to the backend.
public final class Terminal<B: Backend> {
    public let backend: B
    private var previous: Buffer?
    public private(set) var lastChangeCount = 0
    /// The rows the terminal moved for the last frame, if any.
    public private(set) var lastScroll: RowScroll?

    public init(backend: B) {
        self.backend = backend
    }

    public var size: Rect {
        let size = backend.size
        return Rect(x: 0, y: 0, width: size.width, height: size.height)
    }

    /// Forces a full repaint on the next draw (after a resize or a corrupted screen).
    public func invalidate() {
        previous = nil
        backend.clear()
    }

    @discardableResult
    public func draw(_ render: (Rect, inout Buffer) -> Void) -> Buffer {
        let area = size
        var buffer = Buffer(area: area)
        render(area, &buffer)
        buffer.draw(with: backend.glyphs)
        buffer.mergeInvisibleStyles()
        let changes: [(x: Int, y: Int, cell: Cell)]
        if let previous, previous.area == area {
            // Rows that moved are moved by the terminal; only what is left is drawn.
            if backend.scrollsRows, let move = RowScroll.find(from: previous, to: buffer), backend.scroll(move) {
                lastScroll = move
                changes = buffer.diff(from: previous.scrolled(move))
            } else {
                lastScroll = nil
                changes = buffer.diff(from: previous)
            }
        } else {
            lastScroll = nil
            backend.clear()
            changes = buffer.diff(from: Buffer(area: .zero))
        }
        lastChangeCount = changes.count
        backend.draw(changes)
        backend.flush()
        previous = buffer
        return buffer
    }
}
