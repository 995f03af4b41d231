import AppStoreServerAPI
@testable import Console
@testable import DeskCore
import Foundation
import TerminalUI
import Testing

/// The pane list and the command registry: every place reads them, answers reach only the
/// pane that asked, and a command says why it cannot run.
@Suite struct PaneRegistryTests {
    func fresh(readOnly: Bool = false) -> ConsoleState {
        var state = ConsoleState(profileName: "p", environment: .production, isDemo: false, bundleId: "com.example", readOnly: readOnly, themeName: "default")
        state.focus = .content
        return state
    }

    @Test func everyPaneIsRegisteredOnceAndReachableByItsNumberAndByTab() {
        let ids = Panes.all.map(\.pane)
        #expect(Set(ids).count == ids.count)
        #expect(Set(Panes.all.map(\.title)).count == ids.count)
        var state = fresh()
        for (index, description) in Panes.all.enumerated() {
            // The tenth pane's key is 0.
            _ = ConsoleReducer.reduce(&state, .key(.character(Character(String((index + 1) % 10)))))
            #expect(state.pane == description.pane)
            state.focus = .content
        }
        var visited: [Pane] = []
        state.pane = Panes.all[0].pane
        for _ in Panes.all {
            visited.append(state.pane)
            state.focus = .content
            _ = ConsoleReducer.reduce(&state, .key(.tab))
        }
        #expect(visited == ids)
        #expect(state.pane == ids[0], "Tab wraps around after the last pane")
    }

    /// A tab is abbreviated only when the bar does not fit with its full title: the longest go first.
    @Test func tabsShowFullTitlesWhereTheyFit() {
        let full = Panes.all.map(\.title)
        let short = Panes.all.map(\.shortTitle)
        #expect(Panes.tabTitles(width: 200) == full)
        #expect(Panes.tabTitles(width: 80) == short)
        let wide = Panes.tabTitles(width: 120)
        #expect(wide.contains("Customer") && wide.contains("Subscriptions") && wide.contains("Transactions"), "\(wide)")
        #expect(!wide.contains("Refund requests"), "the longest title is the first shortened: \(wide)")
        for width in [80, 100, 120, 140] {
            let titles = Panes.tabTitles(width: width)
            #expect(titles.map { TextWidth.of($0) + 4 }.reduce(0, +) <= width, "\(width): \(titles)")
            // Every label still shows on the bar.
            #expect(Tabs.labels(titles, width: width) == titles.enumerated().map { " \(($0.offset + 1) % 10) \($0.element) " }, "\(width)")
        }
    }

    @Test func answersGoOnlyToThePaneThatAsked() throws {
        var state = fresh()
        _ = ConsoleReducer.reduce(&state, .key(.character("i")))
        for c in "2000000400000044" { _ = ConsoleReducer.reduce(&state, .key(.character(c))) }
        let lookup = ConsoleReducer.reduce(&state, .key(.enter))
        guard let customerRequest = lookup.task(named: "customer")?.request else {
            Issue.record("expected a customer load, got \(lookup)")
            return
        }
        #expect(state.requestOwners[customerRequest] == .customer)
        // The Notifications pane asks for its own history.
        _ = ConsoleReducer.reduce(&state, .key(.character("6")))
        let notificationRequest = try #require(state.requestOwners.first { $0.value == .notifications }?.key)
        // A history page for the notifications request is not the customer's, and the reverse.
        _ = ConsoleReducer.reduce(&state, .customer(request: notificationRequest, .notifications(.success([]))))
        #expect(state.customer?.notifications.isLoading == true)
        _ = ConsoleReducer.reduce(&state, .answer(request: customerRequest, NotificationsAnswer.history(.success([]))))
        #expect(state.notificationsPane.isLoading)
        _ = ConsoleReducer.reduce(&state, .answer(request: notificationRequest, NotificationsAnswer.history(.success([]))))
        #expect(state.notificationsPane.value?.isEmpty == true)
        // An answer to a request nobody made is dropped.
        _ = ConsoleReducer.reduce(&state, .answer(request: 9_999, InspectorAnswer.report(InspectionReport(items: [], problem: "stray"))))
        #expect(state.inspected.value == nil)
    }

    @Test func aPaneTaskAnswersItsPane() {
        var state = fresh()
        _ = ConsoleReducer.reduce(&state, .key(.character("7")))
        #expect(state.pane == .inspector && state.focus == .paneInput)
        let effects = ConsoleReducer.reduce(&state, .key(.paste("eyJhbGciOiJFUzI1NiJ9.e30.c2ln")))
        guard case .task(let task)? = effects.first else { Issue.record("expected the Inspector's task, got \(effects)"); return }
        #expect(state.requestOwners[task.request] == .inspector)
        _ = ConsoleReducer.reduce(&state, .answer(request: task.request, TimelineAnswer.read(TimelinePane.Read(lookup: 0, writes: [], notes: [], received: [], problems: []))))
        #expect(state.inspected.isLoading, "an answer of another pane's type is not taken for a report")
        _ = ConsoleReducer.reduce(&state, .answer(request: task.request, InspectorAnswer.report(InspectionReport(items: [], problem: "Not a JWS"))))
        #expect(state.inspected.value?.report?.problem == "Not a JWS")
    }

    @Test func anUnavailableCommandSaysWhyAndDoesNothing() {
        var state = fresh(readOnly: true)
        state.pane = .subscriptions
        state.customer = CustomerState(query: "2000000400000044", lookup: 1)
        state.customer?.subscriptions = .loaded([SubscriptionRow(groupIdentifier: "g", originalTransactionId: "2000000400000044", status: .active, transaction: nil, renewal: nil)])
        let effects = ConsoleReducer.reduce(&state, .key(.character("e")))
        #expect(effects.isEmpty)
        #expect(state.overlay == nil)
        #expect(state.toasts.last?.text == "Read-only profile p: extend renewal is disabled.")
        #expect(!ConsoleView.footerHints(state).contains { $0.label == "Extend renewal" }, "the footer leaves out what cannot be used")
        // `!` with nothing to show says so instead of opening an empty dialog.
        _ = ConsoleReducer.reduce(&state, .key(.character("!")))
        #expect(state.overlay == nil)
        #expect(state.toasts.last?.text == "No error to show.")
    }

    @Test func dialogsTakeTheirKeysFromTheRegistryAndRebindingReachesThem() throws {
        var state = fresh()
        state.keymap = try Keymap.standard.rebinding(["help.close": ["x"]])
        _ = ConsoleReducer.reduce(&state, .key(.character("?")))
        #expect(state.overlay == .help)
        _ = ConsoleReducer.reduce(&state, .key(.escape))
        #expect(state.overlay == .help, "Esc was rebound away from help.close")
        _ = ConsoleReducer.reduce(&state, .key(.character("x")))
        #expect(state.overlay == nil)
        #expect(throws: KeymapError.self) { try Keymap.standard.rebinding(["no.such.command": ["x"]]) }
    }

    @Test func colonCommandsComeFromTheRegistry() {
        let names = ActionRegistry.colonCommands.flatMap(\.names)
        #expect(Set(names).count == names.count, "two : commands share a name")
        #expect(CommandLine.complete("sub").completed == "subtype ")
        var state = fresh()
        _ = CommandLine.execute(&state, "type DID_RENEW")
        _ = CommandLine.execute(&state, "subtype VOLUNTARY")
        #expect(state.lastError?.summary == "VOLUNTARY is not a subtype of DID_RENEW.")
        #expect(state.lastError?.hint == "Its subtypes: BILLING_RECOVERY.")
    }
}
