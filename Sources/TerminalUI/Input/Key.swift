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
