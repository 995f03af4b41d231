import AppStoreServerAPI
@testable import Console
@testable import DeskCore
import Foundation
import TerminalUI
import Testing

/// `:doctor` in the console: the checks run as a task while keys still work, and their report opens in an overlay.
@Suite struct DoctorCommandTests {
    @Test func colonDoctorRunsTheChecksAndShowsTheReport() async throws {
        let harness = try await ConsoleHarness.start()
        defer { Task { await harness.stop() } }
        harness.send(.escape)
        harness.send(.character(":"))
        harness.type("doctor")
        harness.send(.enter)
        let request = try #require(harness.state.doctorRequest)
        #expect(harness.state.inFlight[request] == "checking the set-up")
        #expect(harness.effects.contains { if case .task(let task) = $0 { return task.name == "doctor" } else { return false } })
        // A request to each environment on a busy machine: give it the minute the other timing tests get.
        try await harness.pump(until: { $0.doctorReport != nil }, timeout: 60)
        #expect(harness.state.overlay == .doctor)
        #expect(harness.state.doctorRequest == nil)
        let report = try #require(harness.state.doctorReport)
        #expect(report.worst == .pass, "\(report.lines())")
        let screen = harness.screen(width: 120, height: 30)
        #expect(screen.contains("Set-up check"))
        #expect(screen.contains("PASS token in Production: accepted"))
        harness.send(.escape)
        #expect(harness.state.overlay == nil)
    }

    @Test func aSecondDoctorWhileOneRunsIsRefused() {
        var state = ConsoleState(profileName: "p", environment: .production, isDemo: false, bundleId: "com.example", readOnly: false, themeName: "default")
        state.focus = .content
        let first = CommandLine.execute(&state, "doctor")
        #expect(first.count == 1)
        let second = CommandLine.execute(&state, "doctor")
        #expect(second.isEmpty)
        #expect(state.lastError?.summary == "The set-up check is already running.")
    }

    @Test func anAnswerOfAnotherRequestIsNotTakenForTheReport() {
        var state = ConsoleState(profileName: "p", environment: .production, isDemo: false, bundleId: "com.example", readOnly: false, themeName: "default")
        _ = CommandLine.execute(&state, "doctor")
        let report = DoctorReport(checks: [DoctorCheck("clock", .warn, "this machine's clock is 20 s behind the server's", fix: "sync")])
        _ = ConsoleReducer.reduce(&state, .answer(request: 999, DoctorReducer.DoctorAnswer.report(report)))
        #expect(state.doctorReport == nil)
        _ = ConsoleReducer.reduce(&state, .answer(request: state.doctorRequest!, DoctorReducer.DoctorAnswer.report(report)))
        #expect(state.doctorReport == report)
        #expect(state.overlay == .doctor)
    }
}
