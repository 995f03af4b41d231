import AppStoreServerAPI
@testable import DeskCore
import Foundation
import FuzzSupport

/// A config file either fails with a message or gives profiles that hold only what the loader
/// promises (an environment of Production or Sandbox, an http(s) base URL with a host, key paths
/// with ~ expanded); written back as TOML, the profiles read back the same.
@main enum FuzzConfigFile {
    static let path = "/fuzz/config.toml"
    static let home = "/home/fuzz"

    static func main() {
        Fuzz.run { data in
            let text = String(decoding: data, as: UTF8.self)
            let file: ConfigFile
            do throws(ConfigurationError) {
                file = try ConfigFile.parse(text, path: path, home: home)
            } catch {
                invariant(!error.description.isEmpty, "an empty error")
                return
            }
            for (name, profile) in file.profiles { checkProfile(profile, named: name) }
            let written = write(file)
            do {
                let again = try ConfigFile.parse(written, path: path, home: home)
                invariant(again == file, "written back as\n\(written)\nit reads differently")
            } catch {
                invariant(false, "written back as\n\(written)\nit does not read: \(error)")
            }
            checkResolve(file)
        }
    }

    static func checkProfile(_ profile: Profile, named name: String) {
        invariant(profile.name == name, "profile \(name) is called \(profile.name)")
        if let environment = profile.environment {
            invariant(environment == .production || environment == .sandbox, "environment \(environment)")
        }
        if let url = profile.baseURL {
            invariant(["http", "https"].contains(url.scheme?.lowercased() ?? "") && url.host != nil, "base URL \(url)")
        }
        for path in [profile.keyFile].compactMap({ $0 }) + profile.rootCerts {
            invariant(!path.hasPrefix("~/"), "\(path) not expanded")
        }
    }

    /// Profile choice never crashes, and names the profile asked for.
    static func checkResolve(_ file: ConfigFile) {
        let loader = ConfigLoader(environment: ["HOME": home])
        guard let profile = try? loader.resolve(file: file, name: nil, flags: ProfileOverrides()) else {
            invariant(file.defaultProfile.map { file.profiles[$0] == nil } ?? false, "no profile resolved")
            return
        }
        if let name = file.defaultProfile { invariant(profile.name == name, "resolved \(profile.name), not \(name)") }
    }

    static func write(_ file: ConfigFile) -> String {
        var lines: [String] = []
        if let name = file.defaultProfile { lines.append("default_profile = \(TOMLText.string(name))") }
        for (name, profile) in file.profiles.sorted(by: { $0.key < $1.key }) {
            lines.append("[profiles.\(TOMLText.key(name))]")
            let strings: [(String, String?)] = [
                ("issuer_id", profile.issuerId), ("key_id", profile.keyId), ("key_file", profile.keyFile),
                ("bundle_id", profile.bundleId), ("base_url", profile.baseURL?.absoluteString), ("theme", profile.theme),
                ("environment", profile.environment.map { $0 == .production ? "Production" : "Sandbox" }),
            ]
            for case let (key, value?) in strings { lines.append("\(key) = \(TOMLText.string(value))") }
            if let id = profile.appAppleId { lines.append("app_apple_id = \(id)") }
            if !profile.rootCerts.isEmpty { lines.append("root_certs = [\(profile.rootCerts.map(TOMLText.string).joined(separator: ", "))]") }
            if profile.readOnly { lines.append("read_only = true") }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
