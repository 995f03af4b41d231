import Foundation

/// Files of this source tree (test fixtures), found from this file's path: fuzz targets run from
/// a checkout, never installed.
public enum RepositoryFiles {
    /// Fuzz/Sources/FuzzSupport/RepositoryFiles.swift -> repository root.
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static func data(_ relativePath: String) -> Data {
        let url = root.appendingPathComponent(relativePath)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            fatalError("missing repository file \(url.path)")
        }
        return data
    }

    public static func text(_ relativePath: String) -> String {
        String(decoding: data(relativePath), as: UTF8.self)
    }
}
