import AppStoreServerAPI
import DeskCore
import Foundation
import TerminalUI

extension Pane {
    public static let inspector = Pane("inspector")
}

/// The Inspector's own state: what was pasted and the report on it.
public struct InspectorModel: PaneModel {
    public var input = TextInputState(maxLength: 1 << 20)
    public var report: Loadable<InspectorResult> = .idle
    /// The verification of the latest paste: an earlier one's report would describe other data.
    var request: Int?
    public init() {}
}

extension ConsoleState {
    public var inspectorInput: TextInputState {
        get { models[InspectorModel.self].input }
        set { models[InspectorModel.self].input = newValue }
    }

    public var inspected: Loadable<InspectorResult> {
        get { models[InspectorModel.self].report }
        set { models[InspectorModel.self].report = newValue }
    }
}

/// What the Inspector's verification answers.
enum InspectorAnswer: PaneAnswer {
    case report(InspectionReport)
}

/// Paste signed data, see every signed string in it verified. Built only on the pane registry:
/// its work runs as a `PaneTask` and its answer comes back to it alone.
enum InspectorPane {
    static let description = PaneDescription(
        pane: .inspector, title: "Inspector", shortTitle: "Insp", showsCustomer: false,
        commands: [ReceiptPaste.lookUpCommand],
        detail: { $0.inspected.value?.tree },
        render: InspectorView.render,
        opened: { state in
            state.focus = .paneInput
            return []
        },
        answers: .of(InspectorAnswer.self) { state, request, answer in
            guard case .report(let report) = answer, state.inFlight[request] != nil,
                  request == state.models[InspectorModel.self].request else { return [] }
            state.inFlight[request] = nil
            state.inspected = .loaded(InspectorResult(report))
            state.lists[.inspector] = ListState()
            state.lists[.inspector]?.detailOpen = true
            return []
        },
        cancelled: { state in
            if state.inspected.isLoading { state.inspected = .failed(PaneReducer.cancelled) }
        },
        input: handleKey,
        intercept: { state, key, _ in
            // A new document pasted over a report replaces the old one.
            guard case .paste = key else { return nil }
            state.focus = .paneInput
            return handleKey(&state, key)
        }
    )

    static func handleKey(_ state: inout ConsoleState, _ key: Key) -> [ConsoleEffect] {
        switch key {
        case .paste(let text):
            // A paste is a whole document: it replaces the field and is verified at once, so keys
            // typed meanwhile reach the report, not the pasted text.
            state.inspectorInput = TextInputState(maxLength: state.inspectorInput.maxLength)
            _ = state.inspectorInput.handle(.paste(text))
            return submit(&state)
        default:
            return TextFields.handle(&state, key, field: \.inspectorInput, submit: submit)
        }
    }

    static func submit(_ state: inout ConsoleState) -> [ConsoleEffect] {
        let text = state.inspectorInput.text
        guard text.utf8.contains(where: { $0 != UInt8(ascii: " ") }) else {
            ConsoleReducer.toast(&state, "Paste signed data first: a JWS, a webhook body, an API response or an app receipt.", isError: true)
            return []
        }
        // A legacy app receipt is read here and now: it has nothing to verify with Apple's keys.
        if AppReceiptReader.looksLikeReceipt(text) { return ReceiptPaste.inspect(&state, text) }
        state.inspected = .loading
        state.focus = .content
        let earlier = PaneReducer.supersede(&state, state.models[InspectorModel.self].request)
        let request = ConsoleReducer.start(&state, "Verify signed data", owner: .inspector)
        state.models[InspectorModel.self].request = request
        return [.task(PaneTask(request: request, name: "inspect \(text.utf8.count) bytes") { services, _ in
            InspectorAnswer.report(await services.verification.inspect(text))
        })] + earlier
    }
}
