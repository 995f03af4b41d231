import DeskCore
import TerminalUI

/// The console's panes in tab order: the number before each title is the key that opens it (0 the tenth).
/// A new pane is its own file and one line here.
public enum Panes {
    public static let all: [PaneDescription] = [
        CustomerPane.description,
        OrderPane.description,
        RefundsPane.description,
        SubscriptionsPane.description,
        TransactionsPane.description,
        NotificationsPane.description,
        InspectorPane.description,
        LivePane.description,
        TimelinePane.description,
        RefundRequestsPane.description,
    ]

    private static let byPane: [Pane: PaneDescription] = Dictionary(all.map { ($0.pane, $0) }, uniquingKeysWith: { first, _ in first })

    public static func description(_ pane: Pane) -> PaneDescription { byPane[pane] ?? all[0] }

    public static func index(of pane: Pane) -> Int { all.firstIndex { $0.pane == pane } ?? 0 }

    /// Tab labels for a screen `width` wide: full titles when they fit, else the short ones.
    public static func tabTitles(width: Int) -> [String] {
        let full = all.map(\.title)
        let needed = full.map { TextWidth.of($0) + 4 }.reduce(0, +)
        return needed <= width ? full : all.map(\.shortTitle)
    }
}

extension ConsoleState {
    /// The description of the pane on screen.
    public var current: PaneDescription { Panes.description(pane) }
}
