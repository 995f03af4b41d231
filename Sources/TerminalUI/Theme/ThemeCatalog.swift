import Foundation

/// The shipped themes (`themes/*.toml`) and the user's own (`$XDG_CONFIG_HOME/iapdesk/themes/*.toml`),
/// where a user theme of the same name wins.
public struct ThemeCatalog: Sendable {
    public let userDirectory: String?
    /// The shipped themes' folder, nil when none was found.
    public let shipped: URL?

    public init(userDirectory: String?, shipped: URL? = ThemeCatalog.shippedDirectory) {
        self.userDirectory = userDirectory
        self.shipped = shipped
    }

    /// Where the shipped themes are: `IAPDESK_THEMES_DIR`; else `share/iapdesk/themes` beside the
    /// `bin/` of the running executable (scripts/install.sh puts them there); else the XDG data
    /// folders' `iapdesk/themes`; else `./themes` (the source tree, for `swift run` and tests). No
    /// path of the build machine is compiled in. When none exists the built-in fallback theme is used.
    public static var shippedDirectory: URL? {
        candidates(environment: ProcessInfo.processInfo.environment, executable: Bundle.main.executableURL)
            .first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("default.toml").path) }
    }

    /// The folders looked in, in order.
    public static func candidates(environment: [String: String], executable: URL?) -> [URL] {
        var candidates: [URL] = []
        if let dir = environment["IAPDESK_THEMES_DIR"], !dir.isEmpty {
            candidates.append(URL(fileURLWithPath: dir))
        }
        if let executable = executable?.resolvingSymlinksInPath() {
            candidates.append(executable.deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("share/iapdesk/themes"))
        }
        var dataHome = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        if dataHome == nil, let home = environment["HOME"] { dataHome = home + "/.local/share" }
        let dataDirs = (environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share")
            .split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        for folder in [dataHome].compactMap({ $0 }) + dataDirs {
            candidates.append(URL(fileURLWithPath: folder).appendingPathComponent("iapdesk/themes"))
        }
        candidates.append(URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("themes"))
        return candidates
    }

    public var names: [String] {
        var names = Set<String>()
        for folder in [shipped?.path, userDirectory].compactMap({ $0 }) {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            for file in files where file.hasSuffix(".toml") { names.insert(String(file.dropLast(5))) }
        }
        return names.sorted()
    }

    /// The theme called `name`; unknown names are an error listing the known ones.
    public func load(_ typed: String) throws -> Theme {
        // "café" typed with a combining accent is the file café.toml: Swift compares canonically,
        // and the file is opened by the spelling it has on disk.
        let name = names.first { $0 == typed } ?? typed
        let safe = name.filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
        guard !safe.isEmpty, safe == name else { throw ThemeError("\"\(name)\" is not a theme name") }
        var candidates: [String] = []
        if let userDirectory { candidates.append(userDirectory + "/\(name).toml") }
        if let shipped { candidates.append(shipped.appendingPathComponent("\(name).toml").path) }
        for path in candidates where FileManager.default.fileExists(atPath: path) {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw ThemeError("\(path) cannot be read") }
            return try Theme.parse(text, source: path)
        }
        // A binary run away from its themes (copied alone, or from another folder) still opens.
        if name == "default" && shipped == nil { return Theme.fallback }
        throw ThemeError("No theme named \"\(name)\" (available: \(names.joined(separator: ", ")))")
    }
}
