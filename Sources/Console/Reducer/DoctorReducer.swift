import DeskCore
import Foundation
import TerminalUI

extension ActionContext {
    public static let doctor = ActionContext("Set-up check")
}

extension CommandID {
    public static let doctorClose = CommandID("doctor.close")
}

/// `:doctor`: the set-up checks of `iapdesk doctor`, run with the console's services while the
/// console goes on, their report shown in an overlay.
enum DoctorReducer {
    static let colonCommand = ColonCommand(
        ["doctor", "check"], usage: ":doctor", "Check the set-up (iapdesk doctor)",
        unavailable: { $0.doctorRequest != nil ? "The set-up check is already running." : nil }, perform: { state, _, _ in start(&state) })

    static let commands: [KeyCommand] = [
        KeyCommand(.doctorClose, "Close the set-up check", keys: [.escape, .character("q"), .enter], context: .doctor,
                       inFooter: true, footerLabel: "Close") { state, _ in
            state.overlay = nil
            return []
        },
    ]

    static func start(_ state: inout ConsoleState) -> [ConsoleEffect] {
        let request = ConsoleReducer.start(&state, "checking the set-up")
        state.doctorRequest = request
        ConsoleReducer.toast(&state, "Checking the set-up: key, IDs, clock, a token in each environment…")
        return [.task(PaneTask(request: request, name: "doctor") { services, _ in
            guard let doctor = services.doctor else {
                return DoctorAnswer.report(DoctorReport(checks: [DoctorCheck("set-up check", .skip, "not available in this console")]))
            }
            return DoctorAnswer.report(await doctor.run())
        })]
    }

    /// What `:doctor`'s check answers.
    enum DoctorAnswer: PaneAnswer {
        case report(DoctorReport)
    }

    /// The report of the running check.
    static let answers = PaneAnswers.of(DoctorAnswer.self) { state, request, answer in
        guard request == state.doctorRequest, case .report(let report) = answer else { return [] }
        state.doctorRequest = nil
        state.doctorReport = report
        state.overlay = .doctor
        return []
    }
}
