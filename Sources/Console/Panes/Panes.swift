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

    /// Tab labels for a screen `width` wide: full titles where they fit. The longest are shortened
    /// first, one at a time, until the bar fits, so a wide screen names most panes in full.
    public static func tabTitles(width: Int) -> [String] {
        var titles = all.map(\.title)
        func needed() -> Int { titles.map { TextWidth.of($0) + 4 }.reduce(0, +) }
        // Longest first; of equal length the later tab is shortened first.
        let order = all.indices.sorted { (TextWidth.of(all[$0].title), $0) > (TextWidth.of(all[$1].title), $1) }
        for index in order where needed() > width {
            titles[index] = all[index].shortTitle
        }
        return titles
    }
}

extension ConsoleState {
    /// The description of the pane on screen.
    public var current: PaneDescription { Panes.description(pane) }
}
