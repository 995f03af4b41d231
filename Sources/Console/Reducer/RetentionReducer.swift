import AppStoreServerAPI
import DeskCore
import Foundation
import TerminalUI

extension ActionContext {
    public static let retention = ActionContext("Retention Messaging")
}

extension CommandID {
    public static let retentionClose = CommandID("retention.close")
    public static let retentionRefresh = CommandID("retention.refresh")
    public static let retentionDown = CommandID("retention.down")
    public static let retentionUp = CommandID("retention.up")
}

/// `:retention`: the environment's Retention Messaging configuration (messages, images, default
/// messages, the realtime URL), read-only, in a screen over the panes. Changes are made with
/// `iapdesk retention …`; `r` reads again to see their review states move.
enum RetentionReducer {
    static let colonCommand = ColonCommand(
        ["retention"], usage: ":retention", "Retention Messaging: messages, images, default messages, realtime URL"
    ) { state, _, _ in start(&state) }

    static let commands: [KeyCommand] = [
        KeyCommand(.retentionClose, "Close the Retention Messaging screen", keys: [.escape, .character("q")], context: .retention,
                   inFooter: true, footerLabel: "Close", perform: close),
        KeyCommand(.retentionRefresh, "Read the configuration again", keys: [.character("r"), .function(5)], context: .retention,
                   inFooter: true, footerLabel: "Refresh") { state, _ in start(&state) },
        KeyCommand(.retentionDown, "Scroll down", keys: [.down, .character("j"), .pageDown, .character(" ")], context: .retention,
                   inFooter: true, footerLabel: "Scroll", unavailable: { $0.retention.scroll >= maxScroll($0) ? "This is the end." : nil }) { state, key in
            state.retention.scroll = min(maxScroll(state), state.retention.scroll + step(state, key))
            return []
        },
        KeyCommand(.retentionUp, "Scroll up", keys: [.up, .character("k"), .pageUp], context: .retention,
                   inFooter: true, footerLabel: "Scroll", unavailable: { $0.retention.scroll == 0 ? "This is the top." : nil }) { state, key in
            state.retention.scroll = max(0, state.retention.scroll - step(state, key))
            return []
        },
    ]

    /// Opens the screen (or reads again) and starts the reads.
    static func start(_ state: inout ConsoleState) -> [ConsoleEffect] {
        var effects = stop(&state)
        let known = products(state)
        let slots = RetentionReads.slots(products: known.products, locales: state.retention.locales)
        state.retention.productsSource = known.source
        state.retention.productsLeftOut = known.products.count - Set(slots.map(\.productId)).count
        let request = ConsoleReducer.start(&state, "reading the Retention Messaging configuration")
        state.retention.request = request
        state.retention.overview = RetentionOverview(environment: state.environment, slots: slots, readAt: state.now)
        state.overlay = .retention
        effects.append(.task(PaneTask(request: request, name: "retention") { services, progress in
            await RetentionReads.load(slots, client: services.client, failure: { services.failure($0) }) { progress(RetentionAnswer.part($0)) }
            return RetentionAnswer.done
        }))
        return effects
    }

    /// The products whose default messages are asked, and where they came from in words.
    static func products(_ state: ConsoleState) -> (products: [String], source: String) {
        var customer: [String] = []
        if let profile = state.customer {
            customer += (profile.subscriptions.value ?? []).compactMap { $0.transaction?.payload?.productId }
            customer += (profile.history.value ?? []).filter { $0.payload?.type == .autoRenewableSubscription }.compactMap { $0.payload?.productId }
        }
        let known = RetentionProducts.known(
            catalog: state.retention.catalogProducts, customer: customer, notifications: state.live.rows.compactMap(\.productId))
        return (known.products, known.source)
    }

    /// Stops a read in flight (its answers are dropped).
    static func stop(_ state: inout ConsoleState) -> [ConsoleEffect] {
        guard let request = state.retention.request else { return [] }
        state.retention.request = nil
        state.inFlight[request] = nil
        state.progress[request] = nil
        return [.cancel(request: request)]
    }

    static func close(_ state: inout ConsoleState, _ key: Key) -> [ConsoleEffect] {
        state.overlay = nil
        return stop(&state)
    }

    /// What the reads answer: each part as it arrives, then the end.
    enum RetentionAnswer: PaneAnswer {
        case part(RetentionPart)
        case done
    }

    static let answers = PaneAnswers.of(RetentionAnswer.self) { state, request, answer in
        guard request == state.retention.request else { return [] }
        switch answer {
        case .part(let part): state.retention.overview?.apply(part)
        case .done: state.retention.request = nil
        }
        return []
    }

    // MARK: Scrolling

    static func step(_ state: ConsoleState, _ key: Key) -> Int {
        key == .pageDown || key == .pageUp || key == .character(" ") ? max(1, RetentionOverlay.bodyHeight(state) - 1) : 1
    }

    static func maxScroll(_ state: ConsoleState) -> Int {
        max(0, RetentionOverlay.lineCount(state) - RetentionOverlay.bodyHeight(state))
    }
}
