import Foundation

/// The shipped themes (`themes/*.toml`) and the user's own (`$XDG_CONFIG_HOME/iapdesk/themes/*.toml`),
/// where a user theme of the same name wins.
public struct ThemeCatalog: Sendable {
    public let userDirectory: String?

    public init(userDirectory: String?) {
        self.userDirectory = userDirectory
    }

    /// The repository's `themes/` folder: `IAPDESK_THEMES_DIR`, else the one this source tree was
    /// built from, else `./themes`. When none exists the built-in fallback theme is used.
    public static var shippedDirectory: URL? {
        var candidates: [URL] = []
        if let dir = ProcessInfo.processInfo.environment["IAPDESK_THEMES_DIR"], !dir.isEmpty {
            candidates.append(URL(fileURLWithPath: dir))
        }
        // Sources/TerminalUI/Theme/ThemeCatalog.swift -> repository root.
        candidates.append(URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("themes"))
        candidates.append(URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("themes"))
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("default.toml").path) }
    }

    public var names: [String] {
        var names = Set<String>()
        for folder in [Self.shippedDirectory?.path, userDirectory].compactMap({ $0 }) {
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
        if let shipped = Self.shippedDirectory { candidates.append(shipped.appendingPathComponent("\(name).toml").path) }
        for path in candidates where FileManager.default.fileExists(atPath: path) {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw ThemeError("\(path) cannot be read") }
            return try Theme.parse(text, source: path)
        }
        throw ThemeError("No theme named \"\(name)\" (available: \(names.joined(separator: ", ")))")
    }
}
