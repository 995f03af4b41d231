import DeskCore
import TerminalUI

/// Everything the console knows about one pane. Each pane's file makes one, `Panes.all` lists
/// them in tab order, and every place that loops over panes reads that list.
public struct PaneDescription: Sendable {
    public typealias Reduce = @Sendable (inout ConsoleState) -> [ConsoleEffect]

    public let pane: Pane
    public let title: String
    /// The tab label when the full titles do not fit (80 columns).
    public let shortTitle: String
    /// "transactions": what the rows are, for "12 of 360 transactions"; nil for a pane with no rows.
    public let rowNoun: String?
    /// Whether the breadcrumb names the customer on screen (not for app-wide panes).
    public let showsCustomer: Bool
    /// The pane's own key commands (their context is `ActionContext.pane(…)`).
    public let commands: [KeyCommand]
    /// The pane's own `:` commands.
    public let colonCommands: [ColonCommand]

    /// Rows after the pane's `/` filter.
    let rowCount: @Sendable (ConsoleState) -> Int
    /// The ID `y` copies from the selected row.
    let selectedID: @Sendable (ConsoleState) -> String?
    /// Every row's ID after the `/` filter, in order: the selection follows its row by them when
    /// the filter is cleared.
    let rowIDs: @Sendable (ConsoleState) -> [String?]
    /// The selected row as a foldable tree, for the detail view.
    let detail: @Sendable (ConsoleState) -> TreeNode?
    /// Where the pane draws its table (header row included) inside the pane's inner area.
    let table: @Sendable (ConsoleState, Rect) -> Rect?
    let render: @Sendable (ConsoleState, Theme, Rect, inout Buffer) -> Void
    /// What showing the pane does (focus, a first load).
    let opened: Reduce
    /// What `r` does, and its word in the footer.
    let refresh: Reduce
    public let refreshTitle: String
    /// What Enter does on a row, in the footer, when it is not opening the details.
    public let openTitle: String?
    /// Answers of the tasks this pane started; no other pane's.
    let answers: PaneAnswers
    /// Marks what was loading as stopped, after Esc cancelled its requests.
    let cancelled: @Sendable (inout ConsoleState) -> Void
    /// What the pane does on every tick, shown or not (a live tail polls its store).
    let tick: Reduce
    /// Forgets everything, after a switch of environment.
    let reset: @Sendable (inout ConsoleState) -> Void
    /// Keys while the pane's own input field has focus; nil for a pane with none.
    let input: (@Sendable (inout ConsoleState, Key) -> [ConsoleEffect])?
    /// Keys the pane takes before its commands are looked up (a paste into the Inspector);
    /// nil means the key goes on to the commands.
    let intercept: @Sendable (inout ConsoleState, Key, KeyCommand?) -> [ConsoleEffect]?
    /// What the pane does after its list's selection moved (a page read on demand).
    let scrolled: Reduce

    public init(
        pane: Pane, title: String, shortTitle: String? = nil, rowNoun: String? = nil, showsCustomer: Bool = true,
        commands: [KeyCommand] = [], colonCommands: [ColonCommand] = [],
        rowCount: @escaping @Sendable (ConsoleState) -> Int = { _ in 0 },
        selectedID: @escaping @Sendable (ConsoleState) -> String? = { _ in nil },
        rowIDs: @escaping @Sendable (ConsoleState) -> [String?] = { _ in [] },
        detail: @escaping @Sendable (ConsoleState) -> TreeNode? = { _ in nil },
        table: @escaping @Sendable (ConsoleState, Rect) -> Rect? = { _, _ in nil },
        render: @escaping @Sendable (ConsoleState, Theme, Rect, inout Buffer) -> Void,
        opened: @escaping Reduce = { state in state.focus = .content; return [] },
        refresh: @escaping Reduce = { _ in [] }, refreshTitle: String = "Refresh",
        answers: PaneAnswers = .none,
        cancelled: @escaping @Sendable (inout ConsoleState) -> Void = { _ in },
        tick: @escaping Reduce = { _ in [] },
        reset: @escaping @Sendable (inout ConsoleState) -> Void = { _ in },
        input: (@Sendable (inout ConsoleState, Key) -> [ConsoleEffect])? = nil,
        intercept: @escaping @Sendable (inout ConsoleState, Key, KeyCommand?) -> [ConsoleEffect]? = { _, _, _ in nil },
        scrolled: @escaping Reduce = { _ in [] }, openTitle: String? = nil
    ) {
        self.pane = pane
        self.title = title
        self.shortTitle = shortTitle ?? title
        self.rowNoun = rowNoun
        self.showsCustomer = showsCustomer
        self.commands = commands
        self.colonCommands = colonCommands
        self.rowCount = rowCount
        self.selectedID = selectedID
        self.rowIDs = rowIDs
        self.detail = detail
        self.table = table
        self.render = render
        self.opened = opened
        self.refresh = refresh
        self.refreshTitle = refreshTitle
        self.answers = answers
        self.cancelled = cancelled
        self.tick = tick
        self.reset = reset
        self.input = input
        self.intercept = intercept
        self.scrolled = scrolled
        self.openTitle = openTitle
    }

    /// Whether the pane is a list of rows (list keys, filter, details).
    public var isList: Bool { rowNoun != nil }
}
