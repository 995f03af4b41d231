/// A backend whose screen is a buffer: tests and benchmarks render into it and read it back.
public final class HeadlessBackend: Backend {
    public private(set) var screen: Buffer

    /// Whether frames may move rows as a terminal's scroll region does (tests of that path).
    public var scrollsRows: Bool

    public let glyphs: GlyphSet

    public init(width: Int, height: Int, scrollsRows: Bool = false, glyphs: GlyphSet = .unicode) {
        screen = Buffer(width: width, height: height)
        self.scrollsRows = scrollsRows
        self.glyphs = glyphs
    }

    public func scroll(_ move: RowScroll) -> Bool {
        guard scrollsRows else { return false }
        screen = screen.scrolled(move)
        return true
    }

    public var size: (width: Int, height: Int) { (screen.area.width, screen.area.height) }

    public func resize(width: Int, height: Int) {
        screen = Buffer(width: width, height: height)
    }

    public func draw(_ changes: [(x: Int, y: Int, cell: Cell)]) {
        for change in changes {
            screen[change.x, change.y] = change.cell
        }
    }

    public func flush() {}
    public func clear() { screen = Buffer(area: screen.area) }

    public var text: String { screen.text }
}
