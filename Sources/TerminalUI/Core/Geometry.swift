/// A rectangle of cells; (x, y) is the top-left corner.
public struct Rect: Sendable, Equatable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = max(0, width)
        self.height = max(0, height)
    }

    public static let zero = Rect(x: 0, y: 0, width: 0, height: 0)

    public var isEmpty: Bool { width == 0 || height == 0 }
    public var right: Int { x + width }
    public var bottom: Int { y + height }
    public var area: Int { width * height }

    public func inset(by amount: Int) -> Rect {
        Rect(x: x + amount, y: y + amount, width: width - 2 * amount, height: height - 2 * amount)
    }

    public func inset(horizontal: Int = 0, vertical: Int = 0) -> Rect {
        Rect(x: x + horizontal, y: y + vertical, width: width - 2 * horizontal, height: height - 2 * vertical)
    }

    public func intersection(_ other: Rect) -> Rect {
        let left = max(x, other.x)
        let top = max(y, other.y)
        return Rect(x: left, y: top, width: min(right, other.right) - left, height: min(bottom, other.bottom) - top)
    }

    public func contains(x px: Int, y py: Int) -> Bool { px >= x && px < right && py >= y && py < bottom }

    /// A centred rectangle of at most the given size.
    public func centered(width w: Int, height h: Int) -> Rect {
        let cw = min(w, width)
        let ch = min(h, height)
        return Rect(x: x + (width - cw) / 2, y: y + (height - ch) / 2, width: cw, height: ch)
    }

    public var description: String { "\(width)x\(height)@\(x),\(y)" }
}

/// How much room a layout slot asks for.
public enum Constraint: Sendable, Equatable {
    case length(Int)
    case percentage(Int)
    case min(Int)
    /// Shares what is left with other fills, in proportion to the weight.
    case fill(Int)
}

public enum Direction: Sendable {
    case horizontal, vertical
}

/// Splits a rectangle along one axis: fixed sizes first, then minimums, then fills share the rest.
public enum Layout {
    public static func split(_ area: Rect, _ direction: Direction, _ constraints: [Constraint], spacing: Int = 0) -> [Rect] {
        let total = (direction == .horizontal ? area.width : area.height) - spacing * max(0, constraints.count - 1)
        var sizes = constraints.map { constraint -> Int in
            switch constraint {
            case .length(let n): return max(0, n)
            case .percentage(let p): return max(0, total * p / 100)
            case .min(let n): return max(0, n)
            case .fill: return 0
            }
        }
        var remaining = total - sizes.reduce(0, +)
        if remaining < 0 {
            // Too little room: shrink from the last slot backwards.
            for index in sizes.indices.reversed() where remaining < 0 {
                let cut = min(sizes[index], -remaining)
                sizes[index] -= cut
                remaining += cut
            }
        } else {
            let weights = constraints.map { constraint -> Int in
                switch constraint {
                case .fill(let w): return max(1, w)
                case .min: return 0
                default: return 0
                }
            }
            let weightSum = weights.reduce(0, +)
            if weightSum > 0 {
                var given = 0
                let fills = weights.indices.filter { weights[$0] > 0 }
                for (offset, index) in fills.enumerated() {
                    let share = offset == fills.count - 1 ? remaining - given : remaining * weights[index] / weightSum
                    sizes[index] += share
                    given += share
                }
            } else if let minIndex = constraints.lastIndex(where: { if case .min = $0 { return true } else { return false } }) {
                sizes[minIndex] += remaining
            }
        }
        var rects: [Rect] = []
        var offset = direction == .horizontal ? area.x : area.y
        for size in sizes {
            if direction == .horizontal {
                rects.append(Rect(x: offset, y: area.y, width: size, height: area.height))
            } else {
                rects.append(Rect(x: area.x, y: offset, width: area.width, height: size))
            }
            offset += size + spacing
        }
        return rects
    }
}
