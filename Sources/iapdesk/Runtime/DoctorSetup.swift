import AppStoreServerAPI
import DemoServer
import DeskCore
import Foundation

/// Builds the `Doctor` for a profile as the commands would resolve it, or for the embedded demo.
enum DoctorSetup {
    /// The profile from the config file, variables and flags. A file that cannot be used is
    /// itself a finding: the doctor reports it and checks what variables and flags give.
    static func doctor(profileName: String?, configPath: String?, flags: ProfileOverrides, loader: ConfigLoader = ConfigLoader()) -> Doctor {
        let chosen = configPath ?? loader.environment["IAPDESK_CONFIG"].flatMap { $0.isEmpty ? nil : $0 } ?? loader.defaultConfigPath
        var source = Doctor.ConfigSource(path: chosen, exists: FileManager.default.fileExists(atPath: chosen))
        var profile = Profile(name: profileName ?? "default")
        do {
            let file = try loader.loadFile(path: configPath)
            profile = try loader.resolve(file: file, name: profileName, flags: flags)
        } catch {
            source.problem = String(describing: error)
            if let variables = try? ProfileOverrides.fromEnvironment(loader.environment) { profile.apply(variables) }
            profile.apply(flags)
        }
        return Doctor(profile: profile, config: source)
    }

    /// The demo server's credentials written as a real profile would have them (a key file with
    /// mode 600, its root certificate as a DER file), so every check runs as it would for Apple.
    /// The demo's credentials, but for the issuer ID, key ID and bundle ID `flags` give: the demo
    /// then judges them as Apple would (a key ID not the key's is refused), so a probe shows it.
    static func demoDoctor(_ server: DemoServer, folder: String, flags: ProfileOverrides = ProfileOverrides(), timeout: TimeInterval? = nil) throws -> Doctor {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let keyPath = folder + "/SubscriptionKey_\(DemoServer.keyId).p8"
        let rootPath = folder + "/demo-root.der"
        try DemoFiles.writeKey(server.signingKey.pemRepresentation, to: keyPath)
        try server.rootCertificateDER.write(to: URL(fileURLWithPath: rootPath))
        var profile = Profile(name: "demo")
        profile.issuerId = flags.issuerId ?? DemoServer.issuerId
        profile.keyId = flags.keyId ?? DemoServer.keyId
        profile.keyFile = keyPath
        profile.bundleId = flags.bundleId ?? DemoServer.bundleId
        profile.appAppleId = DemoServer.appAppleId
        profile.environment = server.environment
        profile.baseURL = server.baseURL
        profile.rootCerts = [rootPath]
        profile.timeout = timeout
        return Doctor(profile: profile, config: nil, endpoints: [server.serverEnvironment(.production), server.serverEnvironment(.sandbox)])
    }

    /// The exit code of a report: 0 unless a check failed, then that of the first failure.
    static func exitStatus(_ report: DoctorReport) -> ExitStatus {
        switch report.firstFailure?.failure {
        case nil: return .success
        case .configuration: return .configuration
        case .unauthorized: return .unauthorized
        case .unavailable: return .unavailable
        }
    }

    /// Prints the report (a table, or JSON) and returns its exit code.
    static func print(_ report: DoctorReport, json: Bool) -> ExitStatus {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            let data = (try? encoder.encode(report)) ?? Data("{}".utf8)
            Swift.print(String(decoding: data, as: UTF8.self))
        } else {
            for line in report.lines() { Swift.print(line) }
            Swift.print("\n" + report.summary)
        }
        fflush(nil)
        return exitStatus(report)
    }
}
