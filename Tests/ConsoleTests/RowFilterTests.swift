import AppStoreServerAPI
@testable import Console
@testable import DeskCore
import Foundation
import TerminalUI
import Testing

/// Clearing a `/` filter leaves the selection on the row it was on, in view.
@Suite struct RowFilterTests {
    func fresh(_ pane: Pane) -> ConsoleState {
        var state = ConsoleState(profileName: "p", environment: .production, isDemo: false, bundleId: "com.example", readOnly: false, themeName: "default")
        state.screenWidth = 120
        state.screenHeight = 36
        state.pane = pane
        state.focus = .content
        return state
    }

    func send(_ state: inout ConsoleState, _ keys: [Key]) {
        for key in keys { _ = ConsoleReducer.reduce(&state, .key(key)) }
    }

    func down(_ count: Int) -> [Key] { Array(repeating: .character("j"), count: count) }

    /// 200 transactions, every third one of coins.1000.
    static let transactions: [VerifiedTransaction] = (0..<200).map { index in
        var payload = TransactionPayload()
        payload.transactionId = String(2_000_000_400_011_000 + index)
        payload.productId = index % 3 == 0 ? "coins.1000" : "premium.monthly"
        return VerifiedPayload(payload: payload, rawPayload: nil, header: nil, status: .verified, chainSubjects: [])
    }

    /// The selected row's ID, and whether it is on screen.
    func selection(_ state: ConsoleState) -> (id: String?, shown: Bool) {
        let list = state.list(state.pane)
        let visible = Table.visibleRows(height: PaneLayout.table(state)?.height ?? 0)
        let top = Table.scrolledOffset(selected: list.selected, offset: list.offset, visible: visible, count: PaneRows.count(state, state.pane))
        return (PaneRows.selectedID(state, state.pane), list.offset == top && list.selected >= top && list.selected < top + visible)
    }

    @Test func escapeKeepsTheSelectedTransaction() {
        var state = fresh(.transactions)
        state.transactionsPane = .loaded(Self.transactions)
        send(&state, down(40) + [.character("/")] + "coins.1000".map { .character($0) } + [.enter] + down(60))
        #expect(PaneRows.count(state, .transactions) == 67)
        let chosen = selection(state)
        #expect(chosen.id == String(2_000_000_400_011_000 + 180))
        // Esc in the list, the filter kept with Enter.
        send(&state, [.escape])
        #expect(state.filters[.transactions] == nil)
        let after = selection(state)
        #expect(after.id == chosen.id, "the selection stays on transaction \(chosen.id ?? "?")")
        #expect(state.list(.transactions).selected == 180)
        #expect(after.shown, "the selected row is scrolled into view")
        // The row stays on the line of the table it was on.
        let visible = Table.visibleRows(height: PaneLayout.table(state)?.height ?? 0)
        #expect(state.list(.transactions).offset == 180 - (visible - 1))
    }

    @Test func escapeWhileTypingKeepsTheSelectedNotification() {
        var state = fresh(.notifications)
        let rows = (0..<120).map { index -> NotificationRow in
            var payload = NotificationPayload()
            payload.notificationType = index % 4 == 0 ? .refund : .didRenew
            payload.notificationUUID = "uuid-\(index)"
            let notification = VerifiedPayload(payload: payload, rawPayload: nil, header: nil, status: .verified, chainSubjects: [])
            return NotificationRow(decoded: DecodedNotification(notification: notification, transaction: nil, renewalInfo: nil, appTransaction: nil),
                                   signedPayload: "", attempts: [])
        }
        state.notificationsPane = .loaded(rows)
        send(&state, [.character("/")] + "refund".map { .character($0) } + [.enter] + down(10))
        #expect(selection(state).id == "uuid-40")
        // Esc straight from the filter field, while it is being edited.
        send(&state, [.character("/"), .escape])
        #expect(selection(state).id == "uuid-40")
        #expect(selection(state).shown)
    }
}
