/// Where frames go: a real terminal or a buffer in a test.
public protocol Backend: AnyObject {
    var size: (width: Int, height: Int) { get }
    /// Draws changed cells; continuation cells (right halves of wide characters) are skipped.
    func draw(_ changes: [(x: Int, y: Int, cell: Cell)])
    func flush()
    func clear()
}

/// Keeps the last frame and sends only what changed to the backend.
public final class Terminal<B: Backend> {
    public let backend: B
    private var previous: Buffer?
    public private(set) var lastChangeCount = 0

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
        let changes: [(x: Int, y: Int, cell: Cell)]
        if let previous, previous.area == area {
            changes = buffer.diff(from: previous)
        } else {
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
