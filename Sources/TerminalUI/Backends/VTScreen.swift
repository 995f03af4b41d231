import Foundation

/// A small model of an xterm screen: the bytes a backend writes are applied to a grid of
/// characters, so a test or a benchmark driving the console on a pseudo-terminal can see what a
/// real terminal would show after them. It knows what ncurses sends for xterm-256color (cursor
/// moves, erases, scroll regions, scrolling, line and character insert and delete, repeats,
/// wrapping); attributes and colours are skipped.
public struct VTScreen: Sendable {
    public let width: Int
    public let height: Int
    public private(set) var rows: [[Character]]
    private var x = 0
    private var y = 0
    /// After writing in the last column: the next character wraps first (xterm's deferred wrap).
    private var pendingWrap = false
    private var top = 0
    private var bottom: Int
    private var last: Character = " "
    private var saved = (x: 0, y: 0)
    /// IRM (ESC[4h): characters written push the rest of the row right.
    private var insertMode = false
    /// Sequences this model does not know, so a test can fail on them instead of guessing.
    public private(set) var unknown: [String] = []

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
        rows = Array(repeating: Array(repeating: " ", count: width), count: height)
        bottom = height - 1
    }

    public var text: String {
        rows.map { String($0).replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }.joined(separator: "\n")
    }

    /// Applies whole sequences: a write cut inside an escape sequence or a character is applied
    /// once the rest has come (`PseudoTerminal` holds the cut part back).
    public mutating func apply(_ bytes: [UInt8]) {
        let scalars = Array(String(decoding: bytes, as: UTF8.self).unicodeScalars)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            switch scalar.value {
            case 0x1B:
                guard index < scalars.count else { return }
                let next = scalars[index]
                index += 1
                switch next {
                case "[": index = csi(scalars, from: index)
                case "]":
                    // OSC: up to BEL or ST.
                    while index < scalars.count, scalars[index].value != 0x07, !(scalars[index] == "\\" && scalars[index - 1].value == 0x1B) { index += 1 }
                    index += 1
                case "(", ")", "*", "+": index += 1
                case "D": lineFeed()
                case "M": reverseIndex()
                case "E": x = 0; pendingWrap = false; lineFeed()
                case "7": saved = (x, y)
                case "8": (x, y) = saved; pendingWrap = false
                case "=", ">": break
                default: unknown.append("ESC \(next)")
                }
            case 0x0D: x = 0; pendingWrap = false
            case 0x0A, 0x0B, 0x0C: lineFeed()
            case 0x08: x = max(0, x - 1); pendingWrap = false
            case 0x07, 0x0E, 0x0F, 0x00: break
            case 0x09: x = min(width - 1, (x / 8 + 1) * 8); pendingWrap = false
            default:
                if scalar.value < 0x20 { unknown.append("control \(scalar.value)"); continue }
                put(Character(scalar))
            }
        }
    }

    private mutating func put(_ character: Character) {
        if pendingWrap {
            x = 0
            pendingWrap = false
            lineFeed()
        }
        if insertMode {
            rows[y].insert(character, at: x)
            rows[y].removeLast()
        } else {
            rows[y][x] = character
        }
        last = character
        if x == width - 1 { pendingWrap = true } else { x += 1 }
    }

    private mutating func lineFeed() {
        pendingWrap = false
        if y == bottom { scrollUp(1) } else if y < height - 1 { y += 1 }
    }

    private mutating func reverseIndex() {
        pendingWrap = false
        if y == top { scrollDown(1) } else if y > 0 { y -= 1 }
    }

    private var blankRow: [Character] { Array(repeating: " ", count: width) }

    private mutating func scrollUp(_ count: Int) {
        for _ in 0..<min(count, bottom - top + 1) {
            rows.remove(at: top)
            rows.insert(blankRow, at: bottom)
        }
    }

    private mutating func scrollDown(_ count: Int) {
        for _ in 0..<min(count, bottom - top + 1) {
            rows.remove(at: bottom)
            rows.insert(blankRow, at: top)
        }
    }

    /// Applies one control sequence; returns the index after it.
    private mutating func csi(_ scalars: [Unicode.Scalar], from start: Int) -> Int {
        var index = start
        var parameterText = ""
        while index < scalars.count, (0x20...0x3F).contains(scalars[index].value) {
            parameterText.unicodeScalars.append(scalars[index])
            index += 1
        }
        guard index < scalars.count else { return index }
        let final = scalars[index]
        index += 1
        if parameterText.hasPrefix("?") || parameterText.hasPrefix(">") || parameterText.hasPrefix("=") {
            if final != "h" && final != "l" && final != "m" && final != "c" { unknown.append("CSI \(parameterText)\(final)") }
            return index
        }
        let parameters = parameterText.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) }
        func parameter(_ position: Int, _ fallback: Int) -> Int {
            guard position < parameters.count, let value = parameters[position], value != 0 else { return fallback }
            return value
        }
        let n = parameter(0, 1)
        switch final {
        case "H", "f":
            y = min(height - 1, parameter(0, 1) - 1)
            x = min(width - 1, parameter(1, 1) - 1)
            pendingWrap = false
        case "A": y = max(top > y ? 0 : top, y - n); pendingWrap = false
        case "B": y = min(bottom < y ? height - 1 : bottom, y + n); pendingWrap = false
        case "C": x = min(width - 1, x + n); pendingWrap = false
        case "D": x = max(0, x - n); pendingWrap = false
        case "G", "`": x = min(width - 1, n - 1); pendingWrap = false
        case "d": y = min(height - 1, n - 1); pendingWrap = false
        case "K":
            switch parameters.first.flatMap({ $0 }) ?? 0 {
            case 0: for column in x..<width { rows[y][column] = " " }
            case 1: for column in 0...x { rows[y][column] = " " }
            default: rows[y] = blankRow
            }
        case "J":
            switch parameters.first.flatMap({ $0 }) ?? 0 {
            case 0:
                for column in x..<width { rows[y][column] = " " }
                for row in (y + 1)..<height { rows[row] = blankRow }
            case 1:
                for row in 0..<y { rows[row] = blankRow }
                for column in 0...x { rows[y][column] = " " }
            default: rows = Array(repeating: blankRow, count: height)
            }
        case "X": for column in x..<min(width, x + n) { rows[y][column] = " " }
        case "P":
            for _ in 0..<min(n, width - x) {
                rows[y].remove(at: x)
                rows[y].append(" ")
            }
        case "@":
            for _ in 0..<min(n, width - x) {
                rows[y].insert(" ", at: x)
                rows[y].removeLast()
            }
        case "L":
            guard y >= top, y <= bottom else { break }
            for _ in 0..<min(n, bottom - y + 1) {
                rows.remove(at: bottom)
                rows.insert(blankRow, at: y)
            }
            x = 0
        case "M":
            guard y >= top, y <= bottom else { break }
            for _ in 0..<min(n, bottom - y + 1) {
                rows.remove(at: y)
                rows.insert(blankRow, at: bottom)
            }
            x = 0
        case "S": scrollUp(n)
        case "T": scrollDown(n)
        case "b": for _ in 0..<n { put(last) }
        case "r":
            top = parameter(0, 1) - 1
            bottom = min(height - 1, parameter(1, height) - 1)
            x = 0
            y = 0
            pendingWrap = false
        case "h", "l":
            if parameters.contains(where: { $0 == 4 }) { insertMode = final == "h" }
        case "m", "t", "n", "c", "q", "p": break
        default: unknown.append("CSI \(parameterText)\(final)")
        }
        return index
    }
}
