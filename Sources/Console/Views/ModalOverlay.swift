import DeskCore
import TerminalUI

/// A dialog made of one `Modal`: drawn over the panes, and, when it is a confirmation, sent only
/// if it shows whole (a confirmation cut short was not read).
protocol ModalOverlay {
    static func modal(_ state: ConsoleState, _ theme: Theme) -> Modal?
}

extension ModalOverlay {
    static func render(_ state: ConsoleState, _ theme: Theme, _ area: Rect, _ buffer: inout Buffer) {
        modal(state, theme)?.render(in: area, buffer: &buffer)
    }

    static func fits(_ state: ConsoleState) -> Bool {
        guard let modal = modal(state, .fallback) else { return false }
        return modal.fits(in: Rect(x: 0, y: 0, width: state.screenWidth, height: state.screenHeight))
    }
}
