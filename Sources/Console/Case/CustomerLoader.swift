import AppStoreServerAPI
import Foundation
import Synchronization

/// Loads everything the console's customer summary shows, without a terminal: the console's own
/// reducer and effect runner, so the command line finds a customer exactly as the console does
/// (environment fallback, verification against the environment that answered, every page).
public enum CustomerLoader {
    public static func load(_ query: String, services: ConsoleServices, environment: AppStoreEnvironment, timeout: TimeInterval) async -> CustomerState? {
        let inbox = Inbox()
        let runner = EffectRunner(services: services, makeServices: { _ in services }, post: { inbox.append($0) })
        var state = ConsoleState(profileName: "", environment: environment, isDemo: false, bundleId: "", readOnly: true, themeName: "")
        state.now = Date()
        func perform(_ effects: [ConsoleEffect]) {
            for effect in effects {
                switch effect {
                case .copy, .setTheme, .quit, .saveRecentLookups: break
                default: runner.run(effect)
                }
            }
        }
        perform(CustomerReducer.submit(&state, query))
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            for action in inbox.drain() { perform(ConsoleReducer.reduce(&state, action)) }
            if state.inFlight.isEmpty && inbox.isEmpty { break }
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        runner.cancelAll()
        return state.customer
    }

    private final class Inbox: Sendable {
        private let actions = Mutex<[ConsoleAction]>([])
        func append(_ action: ConsoleAction) { actions.withLock { $0.append(action) } }
        func drain() -> [ConsoleAction] {
            actions.withLock { actions in
                defer { actions.removeAll() }
                return actions
            }
        }
        var isEmpty: Bool { actions.withLock { $0.isEmpty } }
    }
}
