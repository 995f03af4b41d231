import AppStoreServerAPI
@testable import Console
@testable import DeskCore
import Foundation
import TerminalUI
import Testing

@Suite struct ReducerTests {
    func fresh(readOnly: Bool = false) -> ConsoleState {
        ConsoleState(profileName: "p", environment: .production, isDemo: false, bundleId: "com.example", readOnly: readOnly, themeName: "default")
    }

    /// The effects of `keys`, but for remembering recent IDs (tested on its own).
    func send(_ state: inout ConsoleState, _ keys: [Key]) -> [ConsoleEffect] {
        keys.flatMap { ConsoleReducer.reduce(&state, .key($0)) }.filter {
            if case .saveRecentLookups = $0 { return false } else { return true }
        }
    }

    func type(_ state: inout ConsoleState, _ text: String) -> [ConsoleEffect] {
        send(&state, text.map { .character($0) })
    }

    @Test func idsAreClassifiedByShape() {
        #expect(IDKind.classify(" mk5tttvwjh ") == .orderId("MK5TTTVWJH"))
        #expect(IDKind.classify("2000000400000044") == .transactionId("2000000400000044"))
        guard case .invalid = IDKind.classify("not an id!") else { Issue.record("garbage must be invalid"); return }
        guard case .invalid = IDKind.classify("") else { Issue.record("empty must be invalid"); return }
        guard case .invalid = IDKind.classify(String(repeating: "9", count: 500)) else { Issue.record("too long must be invalid"); return }
    }

    @Test func customerLookupByOrderThenByTransaction() {
        var state = fresh()
        #expect(state.focus == .paneInput)
        _ = type(&state, "mk5tttvwjh")
        let effects = send(&state, [.enter])
        guard let lookup = effects.task(named: "look up order") else { Issue.record("expected an order lookup, got \(effects)"); return }
        let request = lookup.request
        let order = "MK5TTTVWJH"
        #expect(lookup.name == "look up order MK5TTTVWJH")
        #expect(state.inFlight[request] != nil)
        #expect(state.customer?.order.isLoading == true)
        // The order answers: the customer's other parts load from its first original transaction.
        var t = TransactionPayload()
        t.transactionId = "2000000400000044"
        t.originalTransactionId = "2000000400000044"
        let verified = VerifiedPayload(payload: t, rawPayload: nil, header: nil, status: .verified, chainSubjects: [])
        let next = ConsoleReducer.reduce(&state, .customer(request: request, .order(.success(OrderResult(orderId: order, status: .valid, transactions: [verified])))))
        #expect(next.count == 1 && next.task(named: "customer 2000000400000044")?.request == request + 1)
        #expect(state.customer?.environment == .production)
        #expect(state.customer?.anchorId == "2000000400000044")
        #expect(state.customer?.subscriptions.isLoading == true)
    }

    @Test func wrongInputIsExplainedAndKept() {
        var state = fresh()
        _ = type(&state, "not an id!")
        #expect(send(&state, [.enter]).isEmpty)
        #expect(state.lastError?.summary.contains("characters no ID has") == true)
        #expect(state.lookupInput.text == "not an id!")
        _ = send(&state, [.paste(String(repeating: "x", count: 10_000))])
        #expect(state.lookupInput.text == "not an id!", "a paste longer than any ID is not cut to fit")
        #expect(state.toasts.last?.text.hasPrefix("Nothing pasted: 10000 characters is no ID") == true)
    }

    @Test func newLookupsStartEmptyAndUpRecallsRecentIDs() {
        var state = fresh()
        state.recentLookups = ["2000000400000044"]
        _ = type(&state, "mk5tttvwjh")
        let effects = ConsoleReducer.reduce(&state, .key(.enter))
        #expect(effects.contains(.saveRecentLookups(["MK5TTTVWJH", "2000000400000044"])))
        // Esc in the content never enters the field; i does, empty.
        _ = send(&state, [.escape, .escape])
        #expect(state.focus == .content)
        _ = send(&state, [.character("q")])
        #expect(state.shouldQuit, "q quits from the content, never lands in the field")
        #expect(state.lookupInput.text == "MK5TTTVWJH")
        var next = state
        next.shouldQuit = false
        next.focus = .content
        _ = send(&next, [.character("i")])
        #expect(next.focus == .paneInput)
        #expect(next.lookupInput.text.isEmpty)
        _ = send(&next, [.up])
        #expect(next.lookupInput.text == "MK5TTTVWJH")
        _ = send(&next, [.up, .up])
        #expect(next.lookupInput.text == "2000000400000044")
        _ = send(&next, [.down])
        #expect(next.lookupInput.text == "MK5TTTVWJH")
        _ = send(&next, [.down])
        #expect(next.lookupInput.text.isEmpty)
        // Looking up the newest again saves nothing new.
        _ = type(&next, "MK5TTTVWJH")
        #expect(!ConsoleReducer.reduce(&next, .key(.enter)).contains { if case .saveRecentLookups = $0 { return true } else { return false } })
    }

    @Test func recentLookupsAreKeptPerProfile() throws {
        let folder = NSTemporaryDirectory() + "iapdesk-recent-\(UUID().uuidString)"
        let support = RecentLookups(stateDirectory: folder, profile: "support")
        try support.save(RecentLookups.adding("B", to: ["A"]))
        #expect(support.load() == ["B", "A"])
        #expect(RecentLookups(stateDirectory: folder, profile: "../support").load().isEmpty)
        #expect(RecentLookups(stateDirectory: folder, profile: "../support").path.hasPrefix(folder + "/recent/"))
        #expect(RecentLookups(stateDirectory: folder, profile: "staging").load().isEmpty)
        #expect(RecentLookups.adding("x", to: (0..<30).map(String.init)).count == RecentLookups.limit)
    }

    @Test func tabCompletesCommandLineVerbs() {
        var state = fresh()
        state.focus = .content
        _ = send(&state, [.character(":")])
        _ = type(&state, "wr")
        _ = send(&state, [.tab])
        #expect(state.commandInput.text == "writes ")
        state.commandInput = TextInputState(text: "t", maxLength: 256)
        _ = send(&state, [.tab])
        #expect(state.commandInput.text == "t")
        #expect(state.toasts.last?.text == ":theme  :to  :tx  :txn  :type")
        // Every verb listed is one execute knows.
        for verb in CommandLine.verbs {
            var probe = fresh()
            _ = CommandLine.execute(&probe, verb)
            #expect(probe.lastError?.summary.hasPrefix("Unknown command") != true, "\(verb)")
        }
    }

    @Test func aCutErrorCanBeReadInFull() {
        var state = fresh()
        state.focus = .content
        let hint = "Check the key ID and the issuer ID in App Store Connect, Users and Access, Integrations; a revoked key answers 401 until a new one is configured."
        ConsoleReducer.fail(&state, DisplayError(summary: "HTTP 401: Apple refused the request token.", hint: hint))
        func screen() -> String {
            let backend = HeadlessBackend(width: 80, height: 24)
            Terminal(backend: backend).draw { area, buffer in ConsoleView.render(state, theme: .fallback, area: area, buffer: &buffer) }
            return backend.text
        }
        #expect(screen().contains("! shows all"))
        #expect(!screen().contains("until a new one is configured"))
        _ = send(&state, [.character("!")])
        #expect(state.overlay == .message)
        let whole = screen().replacingOccurrences(of: "│", with: " ").split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        #expect(whole.contains("until a new one is configured"))
        _ = send(&state, [.escape])
        #expect(state.overlay == nil)
        // With nothing to show, ! says so.
        state.lastError = nil
        _ = send(&state, [.character("!")])
        #expect(state.overlay == nil)
        #expect(state.toasts.last?.text == "No error to show.")
    }

    @Test func sandboxRefusesOrderLookupWithoutARequest() {
        var state = fresh()
        state.environment = .sandbox
        _ = type(&state, "MK5TTTVWJH")
        #expect(send(&state, [.enter]).isEmpty)
        #expect(state.customer?.order.error?.summary.contains("Production only") == true)
    }

    @Test func panesSwitchByNumberTabAndCommand() {
        var state = fresh()
        _ = send(&state, [.escape])
        #expect(state.focus == .content)
        _ = send(&state, [.character("4")])
        #expect(state.pane == .subscriptions)
        _ = send(&state, [.tab])
        #expect(state.pane == .transactions)
        _ = send(&state, [.backTab, .backTab])
        #expect(state.pane == .refunds)
        let effects = send(&state, [.character("6")])
        guard effects.task(named: "notification history") != nil else { Issue.record("notifications must load when opened"); return }
        #expect(state.models[NotificationsModel.self].spec?.since == TimeInterval(7 * 86_400))
        _ = send(&state, [.character(":")])
        #expect(state.focus == .commandLine)
        _ = type(&state, "order MK5TTTVWJH")
        let lookup = send(&state, [.enter])
        #expect(state.pane == .customer)
        guard lookup.task(named: "look up order") != nil else { Issue.record("expected :order to look up"); return }
    }

    @Test func commandLineErrorsAndThemes() throws {
        var state = fresh()
        _ = send(&state, [.escape, .character(":")])
        _ = type(&state, "frobnicate")
        _ = send(&state, [.enter])
        #expect(state.lastError?.summary == "Unknown command :frobnicate.")
        _ = send(&state, [.character(":")])
        _ = type(&state, "theme light")
        #expect(send(&state, [.enter]) == [.setTheme("light")])
        _ = send(&state, [.character(":")])
        _ = type(&state, "since 400d")
        let effects = send(&state, [.enter])
        guard effects.task(named: "notification history") != nil else { Issue.record("expected a reload"); return }
        #expect((state.models[NotificationsModel.self].spec?.since ?? .infinity) < 180 * 86_400)
        _ = send(&state, [.character(":")])
        _ = type(&state, "q")
        #expect(send(&state, [.enter]) == [.quit])
    }

    @Test func helpOverlayAndQuit() {
        var state = fresh()
        _ = send(&state, [.escape, .character("?")])
        #expect(state.overlay == .help)
        _ = send(&state, [.character("4")])
        #expect(state.pane == .customer, "keys do not leak through the help overlay")
        _ = send(&state, [.escape])
        #expect(state.overlay == nil)
        #expect(send(&state, [.character("q")]) == [.quit])
        var typing = fresh()
        _ = send(&typing, [.character(":")])
        #expect(typing.focus == .paneInput, "':' is text in the lookup field (Order ID: MK5TTTVWJH)")
        _ = send(&typing, [.character("q")])
        #expect(typing.lookupInput.text == ":q", "q types into the lookup field")
        _ = send(&typing, [.escape, .character(":")])
        #expect(typing.focus == .commandLine, "':' opens the command line once Esc has left the field")
        #expect(send(&typing, [.control("c")]) == [.quit])
    }

    /// Ctrl-Z suspends wherever the focus is, as in a shell: typing in a field, under an overlay, on
    /// a terminal too small to draw; nothing else changes, so `fg` finds the console as it was.
    @Test func ctrlZSuspendsFromEveryFocus() {
        var typing = fresh()
        _ = type(&typing, "MK5")
        let before = typing.lookupInput.text
        #expect(send(&typing, [.control("z")]) == [.suspend])
        #expect(typing.lookupInput.text == before && typing.focus == .paneInput)
        var helped = fresh()
        _ = send(&helped, [.escape, .character("?")])
        #expect(send(&helped, [.control("z")]) == [.suspend])
        #expect(helped.overlay == .help)
        var tiny = fresh()
        _ = ConsoleReducer.reduce(&tiny, .screenSize(width: 20, height: 5))
        #expect(send(&tiny, [.control("z")]) == [.suspend])
        #expect(!tiny.shouldQuit)
        // Listed with the other commands (help, docs/keybindings.md), and bound to another key by ID.
        #expect(ActionRegistry.all.contains { $0.id == .appSuspend && $0.keys == [.control("z")] })
        #expect(ActionRegistry.markdown().contains("| Ctrl-Z | Suspend to the shell (fg resumes) | `app.suspend` |"))
    }

    /// Answers the re-read a review asks for: the subscription as `renewing` says (by default as
    /// the state has it), with `count` earlier extensions.
    static func answerReview(
        _ state: inout ConsoleState, _ effects: [ConsoleEffect], identifier: String, renewing: Date? = nil, count: ExtensionCount? = nil
    ) throws {
        guard case .reviewExtension(let request, let original, _)? = effects.first else { throw TestError("expected a review, got \(effects)") }
        var row = try #require(state.customer?.subscriptions.value?.first { $0.originalTransactionId == original })
        if let renewing, var payload = row.transaction?.payload {
            payload.expiresDate = renewing
            row.transaction = VerifiedPayload(payload: payload, rawPayload: nil, header: nil, status: .verified, chainSubjects: [])
        }
        let counted = count ?? ExtensionCount(notified: [], fromLedger: [], windowDays: 180)
        _ = ConsoleReducer.reduce(&state, .extensionReviewed(request: request, .success(ExtensionReview(subscription: row, count: counted, requestIdentifier: identifier))))
    }

    func stateWithSubscription(readOnly: Bool = false) -> ConsoleState {
        var state = fresh(readOnly: readOnly)
        var customer = CustomerState(query: "2000000400000044", lookup: 0)
        customer.anchorId = "2000000400000044"
        var t = TransactionPayload()
        t.productId = "pro.monthly"
        t.expiresDate = Date(timeIntervalSince1970: 1_800_000_000)
        customer.subscriptions = .loaded([SubscriptionRow(
            groupIdentifier: "g", originalTransactionId: "2000000400000044", status: .active,
            transaction: VerifiedPayload(payload: t, rawPayload: nil, header: nil, status: .verified, chainSubjects: []), renewal: nil)])
        state.customer = customer
        state.pane = .subscriptions
        state.focus = .content
        return state
    }

    /// An agent types 120, is held at 12, reviews, goes back and types 7: 7 is what is reviewed.
    @Test func aDigitThatDoesNotFitIsSaidAndGoingBackLetsTheDaysBeRetyped() throws {
        var state = stateWithSubscription()
        _ = send(&state, [.character("e")])
        let count = try #require(state.extendForm?.countRequest)
        _ = ConsoleReducer.reduce(&state, .extensionsCounted(request: count, .success(ExtensionCount(notified: [], fromLedger: [], windowDays: 180))))
        _ = send(&state, [.character("1"), .character("2")])
        #expect(state.extendForm?.error == nil)
        _ = send(&state, [.character("0")])
        #expect(state.extendForm?.days.text == "12")
        #expect(state.extendForm?.error?.hasPrefix("Days is one or two digits") == true)
        let review = send(&state, [.enter])
        try Self.answerReview(&state, review, identifier: "5c1b6f0e-2d4a-4e8b-9f3c-7a6d5e4c3b2a")
        #expect(state.extendForm?.confirming == true)
        _ = send(&state, [.escape])
        #expect(state.extendForm?.confirming == false)
        _ = send(&state, [.character("7")])
        #expect(state.extendForm?.dayCount == 7)
        #expect(state.extendForm?.error == nil)
    }

    @Test func extensionNeedsConfirmationAndSendsTheShownRequest() throws {
        var state = stateWithSubscription()
        _ = send(&state, [.character("e")])
        #expect(state.overlay == .extend)
        #expect(state.extendForm?.dayCount == 7)
        // Nothing is reviewed before earlier extensions are counted (Apple allows two a year).
        #expect(send(&state, [.enter]).isEmpty)
        #expect(state.extendForm?.confirming == false)
        #expect(state.toasts.last?.text.hasPrefix("Counting earlier extensions first") == true)
        let count = try #require(state.extendForm?.countRequest)
        _ = ConsoleReducer.reduce(&state, .extensionsCounted(request: count, .success(ExtensionCount(notified: [], fromLedger: [], windowDays: 180))))
        _ = send(&state, [.backspace, .character("9"), .character("5")])
        _ = send(&state, [.enter])
        #expect(state.extendForm?.error == "Days must be a number from 1 to 90.")
        #expect(state.extendForm?.confirming == false)
        _ = send(&state, [.backspace, .backspace, .character("1"), .character("4"), .right, .right])
        #expect(state.extendForm?.reason == .serviceIssueOrOutage)
        // The subscription is read again for the confirmation; the identifier comes with it from outside the reducer.
        let review = send(&state, [.enter])
        #expect(state.extendForm?.confirming == false)
        try Self.answerReview(&state, review, identifier: "5c1b6f0e-2d4a-4e8b-9f3c-7a6d5e4c3b2a")
        #expect(state.extendForm?.confirming == true)
        let effects = send(&state, [.enter])
        guard case .extend(let request, let target)? = effects.first else { Issue.record("expected the extension, got \(effects)"); return }
        #expect(target == ExtendTarget(
            originalTransactionId: "2000000400000044",
            body: ExtendRenewalDateRequest(extendByDays: 14, extendReasonCode: .serviceIssueOrOutage, requestIdentifier: "5c1b6f0e-2d4a-4e8b-9f3c-7a6d5e4c3b2a"),
            environment: nil, subject: "original transaction 2000000400000044", confirmedRenewal: Date(timeIntervalSince1970: 1_800_000_000)))
        #expect(state.customer?.requests.contains(request) == true)
        #expect(state.overlay == nil)
    }

    @Test func typingDaysReplacesTheDefault() {
        var state = stateWithSubscription()
        _ = send(&state, [.character("e"), .character("1"), .character("4")])
        #expect(state.extendForm?.dayCount == 14, "14 typed over the default 7 is 14, not 71")
        _ = send(&state, [.backspace, .backspace, .character("9"), .character("5"), .up])
        #expect(state.extendForm?.dayCount == 90, "↑ from an out-of-range 95 is the nearest allowed, 90")
    }

    @Test func readOnlyProfilesCannotExtendAndThirdExtensionIsRefused() {
        var readOnly = stateWithSubscription(readOnly: true)
        #expect(send(&readOnly, [.character("e")]).isEmpty)
        #expect(readOnly.overlay == nil)
        #expect(readOnly.toasts.last?.text.contains("Read-only") == true)

        var twice = stateWithSubscription()
        let effects = send(&twice, [.character("e")])
        guard case .countExtensions(let request, let id, _)? = effects.first else { Issue.record("expected a count, got \(effects)"); return }
        #expect(id == "2000000400000044")
        _ = ConsoleReducer.reduce(&twice, .extensionsCounted(request: request, .success(ExtensionCount(notified: [Date(), Date()], fromLedger: [], windowDays: 180))))
        #expect(twice.extendForm?.earlier.value?.summary == "2 found in the last 180 days; older ones by other tools unknown")
        _ = send(&twice, [.enter])
        #expect(twice.extendForm?.confirming == false)
        #expect(twice.extendForm?.error?.contains("refuses a third (4030005)") == true)
    }

    @Test func escapeBeforeTheOrderAnswersLeavesNoPartReadingAsEmpty() {
        var state = fresh()
        _ = type(&state, "8SAVFG75PQ")
        let lookup = send(&state, [.enter])
        #expect(lookup.task(named: "look up order") != nil)
        _ = send(&state, [.escape])
        let customer = state.customer
        for error in [customer?.order.error, customer?.refunds.error, customer?.subscriptions.error, customer?.history.error, customer?.transaction.error] {
            #expect(error?.summary == "Cancelled.", "nothing was read: no part may say the customer has none")
        }
        #expect(state.transactionsPane.error?.summary == "Cancelled.")
    }

    @Test func aNewCustomerStartsWithoutTheLastOnesHistoryFilters() {
        var state = fresh()
        _ = type(&state, "2000000400000044")
        _ = send(&state, [.enter, .character("5"), .character(":")])
        _ = type(&state, "product com.iapdesk.demo.coins.100")
        _ = send(&state, [.enter])
        #expect(state.historyFilters.query.productIds == ["com.iapdesk.demo.coins.100"])
        _ = send(&state, [.character("1"), .character("i")])
        _ = type(&state, "MK5TTTVWJH")
        _ = send(&state, [.enter])
        #expect(state.historyFilters.query == HistoryFilterState().query)
    }

    @Test func escapeCancelsRequestsInFlight() {
        var state = fresh()
        _ = type(&state, "2000000400000044")
        let effects = send(&state, [.enter])
        guard let request = effects.task(named: "customer")?.request else { Issue.record("expected a customer load"); return }
        let cancel = send(&state, [.escape])
        #expect(cancel == [.cancel(request: request)])
        #expect(state.inFlight.isEmpty)
        #expect(state.customer?.subscriptions.error?.summary == "Cancelled.")
        // A late answer to a cancelled request is ignored.
        _ = ConsoleReducer.reduce(&state, .customer(request: request, .subscriptions(.success([]))))
        #expect(state.customer?.subscriptions.error?.summary == "Cancelled.")
    }

    @Test func testNotificationIsFollowedUntilDelivered() {
        var state = fresh()
        state.pane = .notifications
        state.focus = .content
        let effects = send(&state, [.character("t")])
        guard let request = effects.task(named: "request a test notification")?.request else { Issue.record("expected a request"); return }
        let poll = ConsoleReducer.reduce(&state, .testRequested(request: request, .success("token-1")))
        #expect(poll.count == 1 && poll.task(named: "poll test notification token-1")?.request == request)
        let again = ConsoleReducer.reduce(&state, .testStatus(request: request, .failure(DisplayError(APIError.server(ServerFailure(status: 404, code: .testNotificationNotFound, message: "not yet"))))))
        #expect(again.count == 1 && again.task(named: "poll test notification token-1")?.request == request)
        // Text that merely mentions the code is not the code.
        var copy = state
        #expect(ConsoleReducer.reduce(&copy, .testStatus(request: request, .failure(DisplayError(summary: "proxy said 4040008")))).isEmpty)
        let done = ConsoleReducer.reduce(&state, .testStatus(request: request, .success(CheckTestNotificationResponse(
            signedPayload: "x", sendAttempts: [SendAttemptItem(attemptDate: Date(), sendAttemptResult: .timedOut)]))))
        #expect(state.testNotification?.finished == true)
        #expect(state.toasts.last?.isError == true)
        guard done.task(named: "notification history") != nil else { Issue.record("history reloads after the test"); return }
    }

    @Test func filterNarrowsRowsAndToastsExpire() {
        var state = fresh()
        state.pane = .notifications
        state.focus = .content
        var a = NotificationPayload()
        a.notificationType = .didRenew
        var b = NotificationPayload()
        b.notificationType = .refund
        func row(_ p: NotificationPayload) -> NotificationRow {
            NotificationRow(decoded: DecodedNotification(notification: VerifiedPayload(payload: p, rawPayload: nil, header: nil, status: .verified, chainSubjects: []),
                                                         transaction: nil, renewalInfo: nil, appTransaction: nil), signedPayload: "", attempts: [])
        }
        state.notificationsPane = .loaded([row(a), row(b), row(a)])
        _ = send(&state, [.character("/")])
        _ = type(&state, "refund")
        #expect(PaneRows.count(state, .notifications) == 1)
        _ = send(&state, [.enter, .character("G")])
        #expect(state.list(.notifications).selected == 0)
        #expect(PaneRows.total(state, .notifications) == 3)
        let backend = HeadlessBackend(width: 100, height: 24)
        Terminal(backend: backend).draw { area, buffer in ConsoleView.render(state, theme: .fallback, area: area, buffer: &buffer) }
        #expect(backend.text.contains("Filter: refund · 1 of 3 notifications"))
        _ = send(&state, [.escape])
        #expect(PaneRows.count(state, .notifications) == 3)
        ConsoleReducer.toast(&state, "hello")
        for _ in 0..<30 { _ = ConsoleReducer.reduce(&state, .tick(now: Date())) }
        #expect(state.toasts.isEmpty)
    }

    @Test func clicksSwitchPanesAndSelectRows() {
        var state = fresh()
        _ = ConsoleReducer.reduce(&state, .screenSize(width: 120, height: 36))
        let labels = Tabs.labels(Panes.tabTitles(width: 120), width: 120)
        let subscriptionsX = labels.prefix(3).map { TextWidth.of($0) }.reduce(0, +) + 2
        _ = ConsoleReducer.reduce(&state, .key(.click(x: subscriptionsX, y: 1)))
        #expect(state.pane == .subscriptions)
        var rows = stateWithSubscription()
        rows.screenWidth = 120
        rows.screenHeight = 36
        _ = ConsoleReducer.reduce(&rows, .key(.click(x: 10, y: 5)))
        #expect(rows.list(.subscriptions).detailOpen, "a click on the selected row opens it")
        _ = ConsoleReducer.reduce(&rows, .key(.click(x: 10, y: 30)))
        #expect(rows.list(.subscriptions).selected == 0, "a click below the rows selects nothing")
    }

    @Test func viewportStaysUntilTheSelectionReachesItsEdge() {
        var state = fresh()
        _ = ConsoleReducer.reduce(&state, .screenSize(width: 120, height: 24))
        state.pane = .notifications
        state.focus = .content
        var p = NotificationPayload()
        p.notificationType = .didRenew
        let row = NotificationRow(decoded: DecodedNotification(notification: VerifiedPayload(payload: p, rawPayload: nil, header: nil, status: .verified, chainSubjects: []),
                                                               transaction: nil, renewalInfo: nil, appTransaction: nil), signedPayload: "", attempts: [])
        state.notificationsPane = .loaded(Array(repeating: row, count: 100))
        for _ in 0..<30 { _ = ConsoleReducer.reduce(&state, .key(.down)) }
        let offset = state.list(.notifications).offset
        #expect(offset > 0)
        _ = ConsoleReducer.reduce(&state, .key(.up))
        #expect(state.list(.notifications).offset == offset, "moving up inside the viewport does not scroll")
    }

    @Test func keybindingsDocumentMatchesTheRegistry() throws {
        let generated = ActionRegistry.markdown()
        for command in ActionRegistry.all { #expect(generated.contains(command.title)) }
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/keybindings.md")
        let committed = try String(contentsOf: file, encoding: .utf8)
        #expect(committed == generated, "docs/keybindings.md is stale: regenerate it from ActionRegistry.markdown()")
    }
}
