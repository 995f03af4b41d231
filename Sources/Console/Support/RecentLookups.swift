import DeskCore
import Foundation

/// The IDs an agent looked up lately, per profile, so ↑ in the lookup field brings them back.
public struct RecentLookups: Sendable {
    public static let limit = 20
    public let path: String

    /// `~/.local/state/iapdesk/recent/<profile>.json`; the profile name is reduced to safe characters.
    public init(stateDirectory: String, profile: String) {
        let safe = String(profile.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) || "-_.".unicodeScalars.contains($0) ? Character($0) : "_" })
        path = stateDirectory + "/recent/" + (safe.isEmpty || safe.hasPrefix(".") ? "_" + safe : safe) + ".json"
    }

    /// Newest first; an unreadable file is an empty list (it only ever saves typing).
    public func load() -> [String] {
        guard let data = FileManager.default.contents(atPath: path),
              let ids = try? JSONDecoder().decode([String].self, from: data) else { return [] }
        return Array(ids.filter { !$0.isEmpty && $0.count <= 64 }.prefix(Self.limit))
    }

    public func save(_ ids: [String]) throws {
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let data = try JSONEncoder().encode(Array(ids.prefix(Self.limit)))
        try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    }

    /// `id` first, without repeats, at most `limit`.
    public static func adding(_ id: String, to ids: [String]) -> [String] {
        Array(([id] + ids.filter { $0 != id }).prefix(limit))
    }
}
