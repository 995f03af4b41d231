import DeskCore
import TerminalUI

/// Where things are on the screen: one definition for the views and for the code that maps
/// clicks and scrolling to rows.
enum PaneLayout {
    static let tabRow = 1

    /// Top bar, tabs, breadcrumbs, pane, status line, footer.
    static func rows(_ screen: Rect) -> [Rect] {
        Layout.split(screen, .vertical, [.length(1), .length(1), .length(1), .fill(1), .length(1), .length(1)])
    }

    /// The inside of the pane's box.
    static func inner(_ pane: Rect) -> Rect { Block.inner(pane).inset(horizontal: 1) }

    /// The table of the current pane on the current screen.
    static func table(_ state: ConsoleState) -> Rect? {
        let screen = Rect(x: 0, y: 0, width: state.screenWidth, height: state.screenHeight)
        return state.current.table(state, inner(rows(screen)[3]))
    }

    /// The area under a one-line heading and a blank line.
    static func belowHeading(_ inner: Rect) -> Rect {
        Rect(x: inner.x, y: inner.y + 2, width: inner.width, height: inner.height - 2)
    }
}
