import AppStoreServerAPI
import ArgumentParser
import DemoServer
import DeskCore
import Foundation

/// `iapdesk doctor`: is this profile ready to talk to Apple, and if not, what to fix.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check a profile: config file, key file and IDs, clock, a token in Production and Sandbox, bundle ID, root certificates, store.",
        discussion: """
            Each check prints PASS, WARN, FAIL or SKIP (not run because a check it needs failed) and, unless it passed, \
            the fix. Exit 0 when nothing failed (warnings included); otherwise the code of the first failure: 3 for the \
            profile, key or clock, 6 when Apple refused the token (401), 5 when Apple could not be reached.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var storeOptions: StoreOptions

    func run() async throws {
        try await runReporting {
            let report: DoctorReport
            if global.demo {
                var configuration = DemoServer.Configuration()
                if let environment = global.environment { configuration.environment = try ProfileParsing.environmentFlag(environment) }
                let server = try await DemoServer.start(configuration)
                let folder = NSTemporaryDirectory() + "iapdesk-doctor-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
                defer { try? FileManager.default.removeItem(atPath: folder) }
                do {
                    report = try await DoctorSetup.demoDoctor(server, folder: folder, flags: try global.overrides(), timeout: global.timeout).run()
                } catch {
                    await server.stop()
                    throw error
                }
                await server.stop()
            } else {
                let flags = try global.overrides()
                let doctor = DoctorSetup.doctor(profileName: global.profile, configPath: global.config, flags: flags)
                let store = doctor.profile.store
                let flag = storeOptions.store
                let storeCheck = Doctor.ServerCheck(
                    name: StoreCheck.name, fix: "Check that the store's server is up and reachable (docs/team.md).",
                    run: { await StoreCheck.run(flag: flag, profileStore: store) })
                report = await doctor.run(alongside: [storeCheck])
            }
            let status = DoctorSetup.print(report, json: global.json)
            if status != .success { throw ExitCode(status) }
        }
    }
}
