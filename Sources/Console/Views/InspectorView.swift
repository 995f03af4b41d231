import AppStoreServerAPI
import DeskCore
import Foundation
import TerminalUI

/// Pasted signed data and the report of every signed string found in it.
enum InspectorView {
    static func input(_ state: ConsoleState, _ theme: Theme, _ area: Rect, _ buffer: inout Buffer) {
        let x = buffer.write("Paste: ", x: area.x, y: area.y, style: theme[.accent])
        TextInput(state: state.inspectorInput, style: theme[.input], placeholder: "a JWS, JSON holding signed data, or an app receipt", showCursor: state.focus == .paneInput)
            .render(in: Rect(x: x, y: area.y, width: area.right - x, height: 1), buffer: &buffer)
    }

    static func render(_ state: ConsoleState, _ theme: Theme, _ area: Rect, _ buffer: inout Buffer) {
        input(state, theme, area, &buffer)
        let body = Rect(x: area.x, y: area.y + 2, width: area.width, height: area.height - 2)
        if state.inspected.value != nil {
            PaneViews.detail(state, theme, body, &buffer)
            return
        }
        _ = PaneViews.placeholder(state.inspected, empty: "Paste an App Store JWS (notification, transaction, renewal info, app transaction, Retention Messaging real-time request), a webhook body {\"signedPayload\": ...} or an API response (subscription statuses, history...). Every signed string in it is verified and listed with its JSON path; each verdict names the checks made: chain and signature, bundle ID, app Apple ID, environment. A legacy app receipt (base64, \"MI...\") is read, not verified: its purchases are listed, and l looks one up.",
                                  isEmpty: { _ in false }, state, theme, body, &buffer)
    }
}
