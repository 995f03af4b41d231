import DeskCore
import Foundation

/// The console's one loop, as the terminal and the tests run it: an action is reduced into the
/// state, and the effects it asks for are performed, by the front end itself (the clipboard,
/// themes, quitting) or by the effect runner, whose answers come back through the inbox.
public final class ConsoleProgram {
    public var state: ConsoleState
    public let inbox: ConsoleInbox
    private let runner: EffectRunner
    /// Performs an effect that belongs to the front end; false hands it to the runner.
    private let frontEnd: (ConsoleEffect, ConsoleProgram) -> Bool
    /// Hears every effect asked for, in order (tests keep them).
    private let observe: ([ConsoleEffect]) -> Void

    public init(
        state: ConsoleState, inbox: ConsoleInbox, runner: EffectRunner,
        frontEnd: @escaping (ConsoleEffect, ConsoleProgram) -> Bool = { _, _ in false },
        observe: @escaping ([ConsoleEffect]) -> Void = { _ in }
    ) {
        self.state = state
        self.inbox = inbox
        self.runner = runner
        self.frontEnd = frontEnd
        self.observe = observe
    }

    /// Reduces one action and performs what it asks for.
    public func send(_ action: ConsoleAction) {
        perform(ConsoleReducer.reduce(&state, action))
    }

    /// Reduces every answer waiting in the inbox, oldest first; `before` sees each with the state it
    /// meets. Returns how many there were.
    @discardableResult
    public func drain(before: (ConsoleAction, ConsoleState) -> Void = { _, _ in }) -> Int {
        let actions = inbox.take()
        for action in actions {
            before(action, state)
            send(action)
        }
        return actions.count
    }

    public func perform(_ effects: [ConsoleEffect]) {
        guard !effects.isEmpty else { return }
        observe(effects)
        for effect in effects {
            if case .quit = effect {
                state.shouldQuit = true
                continue
            }
            if frontEnd(effect, self) { continue }
            switch effect {
            case .copy, .setTheme, .suspend:
                // A front end without a clipboard, themes or a shell to return to has nothing to do with them.
                break
            default:
                runner.run(effect)
            }
        }
    }

    /// Cancels every request in flight (the console is closing).
    public func stop() {
        runner.cancelAll()
    }
}
