/// A backend whose screen is a buffer: tests and benchmarks render into it and read it back.
public final class HeadlessBackend: Backend {
    public private(set) var screen: Buffer
    public private(set) var drawnCells = 0
    public private(set) var flushes = 0

    public init(width: Int, height: Int) {
        screen = Buffer(width: width, height: height)
    }

    public var size: (width: Int, height: Int) { (screen.area.width, screen.area.height) }

    public func resize(width: Int, height: Int) {
        screen = Buffer(width: width, height: height)
    }

    public func draw(_ changes: [(x: Int, y: Int, cell: Cell)]) {
        for change in changes {
            screen[change.x, change.y] = change.cell
            drawnCells += 1
        }
    }

    public func flush() { flushes += 1 }
    public func clear() { screen = Buffer(area: screen.area) }

    public var text: String { screen.text }
}
