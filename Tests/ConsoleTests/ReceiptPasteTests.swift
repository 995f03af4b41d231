import AppStoreServerAPI
@testable import Console
@testable import DeskCore
import Foundation
import TerminalUI
import Testing

/// A legacy app receipt pasted into the lookup field or the Inspector: read (not verified), its
/// purchases listed as a tree, one looked up as a customer.
@Suite struct ReceiptPasteTests {
    static let receipt: String = {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("AppStoreServerAPITests/Fixtures/apple/xcode/xcode-app-receipt-with-transaction").path
        return (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }()

    func fresh() -> ConsoleState {
        var state = ConsoleState(profileName: "p", environment: .production, isDemo: false, bundleId: "com.example", readOnly: false, themeName: "default")
        _ = ConsoleReducer.reduce(&state, .screenSize(width: 120, height: 36))
        return state
    }

    @Test func aReceiptPastedIntoTheLookupFieldLooksUpItsLatestPurchase() throws {
        try #require(!Self.receipt.isEmpty)
        var state = fresh()
        #expect(state.focus == .paneInput)
        let effects = ConsoleReducer.reduce(&state, .key(.paste(Self.receipt)))
        // Xcode's receipt holds transaction "0": that is what Apple's ReceiptUtility gives too.
        #expect(effects.task(named: "customer 0") != nil, "\(effects)")
        #expect(state.lookupInput.text == "0")
        #expect(state.customer?.query == "0")
        #expect(state.toasts.contains { $0.text == "Receipt read (not verified): 1 purchase; looking up the latest, 0." }, "\(state.toasts.map(\.text))")
        // Every purchase is in the Inspector, to pick another.
        let tree = try #require(state.inspected.value?.tree)
        #expect(tree.label == "App receipt" && tree.value == "read, not verified")
        #expect(state.inspected.value?.receipt?.bundleId == "com.example.naturelab.backyardbirds.example")
    }

    @Test func theInspectorShowsAReceiptAndLooksUpThePurchasePicked() throws {
        try #require(!Self.receipt.isEmpty)
        var state = fresh()
        _ = ConsoleReducer.reduce(&state, .key(.escape))
        _ = ConsoleReducer.reduce(&state, .key(.character("7")))
        #expect(state.pane == .inspector && state.focus == .paneInput)
        let pasted = ConsoleReducer.reduce(&state, .key(.paste(Self.receipt)))
        #expect(pasted.isEmpty, "read here, nothing sent anywhere")
        #expect(state.focus == .content)
        let lines = try #require(state.inspected.value?.tree).lines(folded: [])
        let labels = lines.map { "\($0.node.label): \($0.node.value ?? "")" }
        #expect(labels.contains("Bundle ID: com.example.naturelab.backyardbirds.example"))
        #expect(labels.contains { $0.hasPrefix("Verification: not verified: the PKCS#7 signature") })
        #expect(labels.contains("In-app purchases: 1 purchase, newest first"))
        #expect(labels.contains("Transaction ID: 0"))
        // l on a line that is not a purchase says what to do; on the purchase it looks it up.
        let refused = ConsoleReducer.reduce(&state, .key(.character("l")))
        #expect(refused.isEmpty)
        #expect(state.toasts.last?.text == "Select one of the receipt's in-app purchases (↓ to it).")
        let purchase = try #require(lines.firstIndex { $0.node.path == "receipt/purchase/0/productId" })
        state.lists[.inspector]?.detailSelected = purchase
        let effects = ConsoleReducer.reduce(&state, .key(.character("l")))
        #expect(state.pane == .customer)
        #expect(state.customer?.query == "0")
        #expect(effects.task(named: "customer 0") != nil, "\(effects)")
        // The screen says it was read, not verified, in the Inspector's own words.
        state.pane = .inspector
        var buffer = Buffer(width: 120, height: 36)
        ConsoleView.render(state, theme: .fallback, area: buffer.area, buffer: &buffer)
        #expect(buffer.text.contains("App receipt: read, not verified"))
    }

    @Test func aReceiptThatCannotBeReadSaysWhyAndLosesNothing() {
        var state = fresh()
        _ = ConsoleReducer.reduce(&state, .key(.escape))
        _ = ConsoleReducer.reduce(&state, .key(.character("7")))
        let cut = String(Self.receipt.prefix(600))
        #expect(ConsoleReducer.reduce(&state, .key(.paste(cut))).isEmpty)
        #expect(state.lastError?.summary.hasPrefix("The receipt is cut short") == true)
        #expect(state.inspected.value == nil)
        var lookup = fresh()
        let before = lookup.lookupInput.text
        #expect(ConsoleReducer.reduce(&lookup, .key(.paste(cut))).isEmpty)
        #expect(lookup.lastError?.summary.hasPrefix("The receipt is cut short") == true)
        #expect(lookup.lookupInput.text == before && lookup.customer == nil)
    }
}
