/// An input event, independent of the terminal library that produced it.
public enum Key: Sendable, Equatable, Hashable {
    case character(Character)
    case enter, escape, tab, backTab, backspace, delete, insert
    case up, down, left, right, pageUp, pageDown, home, end
    case function(Int)
    /// Ctrl with a letter, lowercased: `.control("c")`.
    case control(Character)
    case paste(String)
    case scrollUp, scrollDown
    case click(x: Int, y: Int)
    case resize

    /// The key a name stands for, as written in help and in the config file: "q", "Space",
    /// "Enter", "Esc", "Tab", "Shift-Tab", "Up"/"↑", "PgDn", "F1", "Ctrl-R"; case-insensitive
    /// except single characters.
    public init?(name raw: String) {
        let name = raw.trimmingCharacters(in: .whitespaces)
        let lower = name.lowercased()
        let named: [String: Key] = [
            "space": .character(" "), "enter": .enter, "return": .enter, "esc": .escape, "escape": .escape, "tab": .tab,
            "shift-tab": .backTab, "backspace": .backspace, "delete": .delete, "insert": .insert,
            "up": .up, "↑": .up, "down": .down, "↓": .down, "left": .left, "←": .left, "right": .right, "→": .right,
            "pgup": .pageUp, "pageup": .pageUp, "pgdn": .pageDown, "pagedown": .pageDown, "home": .home, "end": .end,
            "wheel↑": .scrollUp, "wheel↓": .scrollDown, "wheelup": .scrollUp, "wheeldown": .scrollDown,
        ]
        if let key = named[lower] {
            self = key
        } else if name.count == 1, let c = name.first {
            self = .character(c)
        } else if lower.hasPrefix("ctrl-"), lower.count == 6, let c = lower.last, c.isLetter, c.isASCII {
            self = .control(c)
        } else if lower.hasPrefix("f"), let n = Int(lower.dropFirst()), (1...12).contains(n) {
            self = .function(n)
        } else {
            return nil
        }
    }

    /// The name keys are written with in help, footers and docs.
    public var name: String {
        switch self {
        case .character(" "): return "Space"
        case .character(let c): return String(c)
        case .enter: return "Enter"
        case .escape: return "Esc"
        case .tab: return "Tab"
        case .backTab: return "Shift-Tab"
        case .backspace: return "Backspace"
        case .delete: return "Delete"
        case .insert: return "Insert"
        case .up: return "↑"
        case .down: return "↓"
        case .left: return "←"
        case .right: return "→"
        case .pageUp: return "PgUp"
        case .pageDown: return "PgDn"
        case .home: return "Home"
        case .end: return "End"
        case .function(let n): return "F\(n)"
        case .control(let c): return "Ctrl-\(c.uppercased())"
        case .paste: return "Paste"
        case .scrollUp: return "Wheel↑"
        case .scrollDown: return "Wheel↓"
        case .click: return "Click"
        case .resize: return "Resize"
        }
    }
}
