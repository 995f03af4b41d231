/// A terminal colour: the terminal's default, one of the 256 indexed colours, or RGB.
public enum Color: Sendable, Hashable {
    case `default`
    case indexed(UInt8)
    case rgb(UInt8, UInt8, UInt8)

    public static let black = Color.indexed(0), red = Color.indexed(1), green = Color.indexed(2), yellow = Color.indexed(3)
    public static let blue = Color.indexed(4), magenta = Color.indexed(5), cyan = Color.indexed(6), white = Color.indexed(7)
    public static let brightBlack = Color.indexed(8), brightRed = Color.indexed(9), brightGreen = Color.indexed(10)
    public static let brightYellow = Color.indexed(11), brightBlue = Color.indexed(12), brightMagenta = Color.indexed(13)
    public static let brightCyan = Color.indexed(14), brightWhite = Color.indexed(15)

    /// The nearest colour a terminal with `colors` colours can show.
    public func quantized(to colors: Int) -> Color {
        switch self {
        case .default: return self
        case .indexed(let index):
            if colors >= 256 || Int(index) < colors { return self }
            return .indexed(Self.nearestBasic(Self.rgbOf(index), among: colors >= 16 ? 16 : 8))
        case .rgb(let r, let g, let b):
            if colors > 256 { return self }
            if colors >= 256 { return .indexed(Self.nearest256(r, g, b)) }
            return .indexed(Self.nearestBasic((r, g, b), among: colors >= 16 ? 16 : 8))
        }
    }

    static let cube: [Int] = [0, 95, 135, 175, 215, 255]

    static func nearest256(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
        func level(_ v: UInt8) -> Int { cube.indices.min(by: { abs(cube[$0] - Int(v)) < abs(cube[$1] - Int(v)) })! }
        let (lr, lg, lb) = (level(r), level(g), level(b))
        let cubeIndex = 16 + 36 * lr + 6 * lg + lb
        let cubeDistance = distance((cube[lr], cube[lg], cube[lb]), (Int(r), Int(g), Int(b)))
        let grey = (Int(r) + Int(g) + Int(b)) / 3
        let greyLevel = min(23, max(0, (grey - 8 + 5) / 10))
        let greyValue = 8 + 10 * greyLevel
        let greyDistance = distance((greyValue, greyValue, greyValue), (Int(r), Int(g), Int(b)))
        return UInt8(greyDistance < cubeDistance ? 232 + greyLevel : cubeIndex)
    }

    static let basic16: [(Int, Int, Int)] = [
        (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205), (229, 229, 229),
        (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255),
    ]

    /// The nearest of the first `count` basic colours. With 8, the nearest of those 8: taking the
    /// nearest of 16 and dropping its brightness turned greys (bright black) into black, unseen on
    /// a dark terminal.
    static func nearestBasic(_ rgb: (UInt8, UInt8, UInt8), among count: Int) -> UInt8 {
        let target = (Int(rgb.0), Int(rgb.1), Int(rgb.2))
        // A grey among 8 colours is black or white: by distance alone a mid grey is nearer cyan.
        if count <= 8, max(target.0, target.1, target.2) - min(target.0, target.1, target.2) < 24 {
            return (target.0 + target.1 + target.2) / 3 < 64 ? 0 : 7
        }
        let candidates = basic16.indices.prefix(count)
        return UInt8(candidates.min(by: { distance(basic16[$0], target) < distance(basic16[$1], target) })!)
    }

    static func rgbOf(_ index: UInt8) -> (UInt8, UInt8, UInt8) {
        let i = Int(index)
        if i < 16 { let c = basic16[i]; return (UInt8(c.0), UInt8(c.1), UInt8(c.2)) }
        if i >= 232 { let v = UInt8(8 + 10 * (i - 232)); return (v, v, v) }
        let n = i - 16
        return (UInt8(cube[n / 36]), UInt8(cube[(n / 6) % 6]), UInt8(cube[n % 6]))
    }

    static func distance(_ a: (Int, Int, Int), _ b: (Int, Int, Int)) -> Int {
        let dr = a.0 - b.0, dg = a.1 - b.1, db = a.2 - b.2
        return dr * dr * 2 + dg * dg * 4 + db * db * 3
    }
}

public struct Modifiers: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let bold = Modifiers(rawValue: 1)
    public static let dim = Modifiers(rawValue: 2)
    public static let italic = Modifiers(rawValue: 4)
    public static let underline = Modifiers(rawValue: 8)
    public static let reverse = Modifiers(rawValue: 16)
}

/// Foreground, background and modifiers. `patched(with:)` lays one style over another.
public struct Style: Sendable, Hashable {
    public var fg: Color?
    public var bg: Color?
    public var modifiers: Modifiers

    public init(fg: Color? = nil, bg: Color? = nil, modifiers: Modifiers = []) {
        self.fg = fg
        self.bg = bg
        self.modifiers = modifiers
    }

    public static let plain = Style()

    public func patched(with other: Style) -> Style {
        Style(fg: other.fg ?? fg, bg: other.bg ?? bg, modifiers: modifiers.union(other.modifiers))
    }

    public var bold: Style { var s = self; s.modifiers.insert(.bold); return s }
}
