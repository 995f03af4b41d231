import AppStoreServerAPI
@testable import Console
import Crypto
@testable import DeskCore
import Foundation
import Synchronization
import Testing

/// The console's one loop on its own: answers posted from other tasks wake whoever waits, are
/// reduced in order, and each effect goes to the front end or the runner.
@Suite struct ConsoleProgramTests {
    /// A program whose runner asks `transport`, with a front end that keeps what it was handed.
    private func program(_ transport: EffectRunnerTests.StubTransport, frontEnd: EffectLog? = nil) throws -> (ConsoleProgram, ConsoleInbox) {
        let inbox = ConsoleInbox()
        // The runner posts to the inbox, as the console's does.
        let runner = try EffectRunnerTests.runner(transport, post: { inbox.post($0) })
        var state = ConsoleState(profileName: "test", environment: .production, isDemo: false, bundleId: "com.example", readOnly: false, themeName: "default")
        state.now = Date()
        let program = ConsoleProgram(state: state, inbox: inbox, runner: runner, frontEnd: { effect, _ in
            guard case .copy = effect else { return false }
            frontEnd?.append([effect])
            return true
        })
        return (program, inbox)
    }

    @Test func anAnswerPostedElsewhereWakesTheWaiterAndIsReducedInOrder() async throws {
        let (program, inbox) = try program(EffectRunnerTests.StubTransport { _ in HTTPResponse(status: 500, body: Data()) })
        let poster = Task.detached {
            inbox.post(ConsoleAction.notice("first", isError: false))
            inbox.post(ConsoleAction.notice("second", isError: true))
        }
        await inbox.arrival()
        await poster.value
        #expect(program.drain() == 2)
        #expect(program.state.toasts.map { $0.text } == ["first", "second"])
        #expect(inbox.isEmpty)
        #expect(program.drain() == 0)
    }

    @Test func aWaiterIsFreedWhenItsTaskIsCancelled() async {
        let inbox = ConsoleInbox()
        let waiter = Task { await inbox.arrival() }
        waiter.cancel()
        await waiter.value
        #expect(inbox.isEmpty)
    }

    @Test func effectsGoToTheFrontEndOrTheRunnerAndQuitEndsTheLoop() async throws {
        let transport = EffectRunnerTests.StubTransport { _ in HTTPResponse(status: 200, body: Data(#"{"status":1}"#.utf8)) }
        let copied = EffectLog()
        let (program, inbox) = try program(transport, frontEnd: copied)
        let lookup = try #require(CustomerReducer.submit(&program.state, "MK5TTTVWJH").task(named: "look up order"))
        program.perform([.copy("the case file"), .task(lookup), .quit])
        #expect(copied.all == [.copy("the case file")])
        #expect(program.state.shouldQuit)
        // The runner asked Apple and its answer arrives in the inbox.
        var arrived: [ConsoleAction] = []
        while !arrived.contains(where: { if case .finished(lookup.request) = $0 { true } else { false } }) {
            await inbox.arrival()
            arrived += inbox.take()
        }
        #expect(transport.requests.withLock { $0.map(\.url.path) } == ["/inApps/v1/lookup/MK5TTTVWJH"])
        #expect(arrived.contains { if case .order(.success)? = $0.customerPart?.part { true } else { false } })
    }
}
