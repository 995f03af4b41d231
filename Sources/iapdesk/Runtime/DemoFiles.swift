import Foundation

/// Files the demo writes for the key loader (`serve-demo`, the demo doctor).
enum DemoFiles {
    /// Writes the demo key readable by its owner only, as the key loader requires.
    static func writeKey(_ pem: String, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        try? FileManager.default.removeItem(at: url)
        guard FileManager.default.createFile(atPath: path, contents: Data(pem.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw CLIError("Cannot write the demo key to \(path).", status: .configuration)
        }
    }
}
