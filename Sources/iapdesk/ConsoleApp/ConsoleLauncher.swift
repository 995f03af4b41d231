import AppStoreServerAPI
import ArgumentParser
import Console
import DemoServer
import DeskCore
import Foundation
import TerminalUI

enum ConsoleLauncher {
    /// The registry's keys with the config file's `[keys]` applied.
    static func keymap(_ file: ConfigFile) throws -> Keymap {
        do {
            return try Keymap.standard.rebinding(file.keyBindings)
        } catch {
            throw CLIError("\(error.description) (in \(file.path ?? "the config file")).", hint: "iapdesk keybindings lists the commands and their keys.", status: .configuration)
        }
    }

    @MainActor
    static func launch(
        session: Session, themeName: String?, isDemo: Bool, configPath: String? = nil, receiver: ConsoleReceiver, consumptionPolicy: String? = nil,
        exitAfterFirstFrame: Bool = false
    ) async throws {
        do {
            try await run(
                session: session, themeName: themeName, isDemo: isDemo, configPath: configPath, receiver: receiver,
                consumptionPolicy: consumptionPolicy ?? session.profile.consumptionPolicy, exitAfterFirstFrame: exitAfterFirstFrame)
        } catch {
            await receiver.stop()
            throw error
        }
        await receiver.stop()
    }

    @MainActor
    private static func run(
        session: Session, themeName: String?, isDemo: Bool, configPath: String?, receiver: ConsoleReceiver, consumptionPolicy: String?,
        exitAfterFirstFrame: Bool
    ) async throws {
        do {
            try ConsoleTerminal.requireDrawable()
        } catch {
            await session.close()
            throw error
        }
        let loader = ConfigLoader()
        let catalog = ThemeCatalog(userDirectory: loader.configDirectory + "/themes")
        let name = themeName ?? session.profile.theme ?? ProcessInfo.processInfo.environment["IAPDESK_THEME"] ?? "default"
        let theme: Theme
        do {
            theme = try catalog.load(name)
        } catch {
            await session.close()
            throw CLIError("\(error)", status: .configuration)
        }
        // Without a ledger the console still reads; writes are refused with the reason.
        let writes = try? await session.writeContext(source: .console)
        var state = ConsoleState(
            profileName: session.profile.name, environment: session.environment, isDemo: isDemo,
            bundleId: session.profile.bundleId ?? "-", readOnly: session.profile.readOnly, themeName: theme.name)
        state.now = Date()
        state.appRefundPreference = session.profile.refundPreference
        if !session.profile.retentionLocales.isEmpty { state.retention.locales = session.profile.retentionLocales }
        // The demo's products are known; a profile's come from what the console has on screen.
        if isDemo { state.retention.catalogProducts = DemoCatalog.all.filter { $0.type == .autoRenewableSubscription }.map(\.productId) }
        if let consumptionPolicy {
            do {
                state.refundPolicy = try ReceivingPolicy.load(consumptionPolicy)
            } catch {
                await session.close()
                throw error
            }
        }
        do {
            // The profile's file as the session read it; the demo reads it only for its keys.
            state.keymap = try keymap(try session.configFile ?? loader.loadFile(path: configPath))
        } catch {
            // The demo needs no config: a broken one only costs its key bindings.
            guard isDemo else {
                await session.close()
                throw error
            }
            state.toasts.append(ToastMessage(text: "\(error) Default keys are used.", isError: true, expiresAtTick: 100))
        }
        let recent = RecentLookups(stateDirectory: loader.stateDirectory, profile: session.profile.name)
        state.recentLookups = recent.load()
        let inbox = try WakingInbox()
        let demo = session.demo
        state.live.source = receiver.received.source
        let received = receiver.received
        let doctorFolder = NSTemporaryDirectory() + "iapdesk-console-doctor-\(getpid())"
        defer { if demo != nil { try? FileManager.default.removeItem(atPath: doctorFolder) } }
        let doctor = session.doctor(demoFolder: doctorFolder)
        // The console never shows a record's signed string (the command line's --raw does).
        let profileServices = DeskServices(
            client: session.client, verifier: session.verifier?.droppingSignedText(), verifierProblem: session.verifierProblem, writes: writes, received: received,
            doctor: doctor)
        let runner = EffectRunner(
            services: profileServices,
            makeServices: { environment in
                if let demo {
                    return DeskServices(
                        client: try demo.makeClient(environment: environment, callTimeout: session.timeout),
                        verifier: try demo.makeVerifier(environment: environment).droppingSignedText(), writes: writes, received: received, doctor: doctor)
                }
                guard environment == session.environment else {
                    throw CLIError("this profile is for \(session.environment.label); use a profile for \(environment.label)", status: .configuration)
                }
                return profileServices
            },
            recentLookups: recent,
            post: { inbox.post($0) })
        var effects: [ConsoleEffect] = []
        if let writes {
            // Only this account's unfinished writes are reconciled; the rest are counted and left alone.
            let plan = WriteReconciler.plan(
                (try? await writes.ledger.unresolved()) ?? [], accounts: session.accounts(writes), agent: writes.agent, now: Date())
            effects = ConsoleReducer.reconcile(&state, plan)
        }
        let loop = ConsoleLoop(
            state: state, theme: theme, catalog: catalog, runner: runner, inbox: inbox,
            noColor: ProcessInfo.processInfo.environment["NO_COLOR"].map { !$0.isEmpty } ?? false)
        do {
            try loop.run(initialEffects: effects, exitAfterFirstFrame: exitAfterFirstFrame)
        } catch let error as TerminalError {
            await session.close()
            throw CLIError(error.description, status: .failure)
        }
        await session.close()
    }
}
