import AppStoreServerAPI
import ArgumentParser
import DemoServer
import DeskCore
import Foundation

struct RetentionImagesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "images", abstract: "List, upload and delete retention message images.",
        subcommands: [RetentionImagesListCommand.self, RetentionImageUploadCommand.self, RetentionImageDeleteCommand.self],
        defaultSubcommand: RetentionImagesListCommand.self)
}

struct RetentionImagesListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Every uploaded image with its size and review state.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await withSession(global) { session, printer in
            let images = try await session.client.getImageList().imageIdentifiers ?? []
            printer.emit(RetentionImageListOutput(environment: session.environment.rawValue, images: images.map(RetentionImageRecord.init)))
            guard !images.isEmpty else { return printer.text("No images in \(session.environmentLabel).") }
            var table = TextTable("IMAGE", "SIZE", "STATE")
            for image in images {
                table.add(image.imageIdentifier ?? "-", image.imageSize?.label ?? "-", image.imageState?.label ?? "-")
            }
            printer.text(table.render())
        }
    }
}

/// `--size full|bullet`.
enum ImageSizeArgument {
    static func parse(_ text: String) throws -> ImageSize {
        switch text.lowercased().replacingOccurrences(of: "_", with: "-") {
        case "full", "full-size": return .fullSize
        case "bullet", "bullet-point": return .bulletPoint
        default: throw ValidationError("--size must be full (3840 pixels wide, 160 to 2160 high) or bullet (1024×1024), not \(text).")
        }
    }
}

struct RetentionImageUploadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upload", abstract: "Upload a PNG for a message (full) or a bullet point (bullet).",
        discussion: """
            The file is checked first against Apple's rules, each broken rule said: a PNG, with no alpha channel and no \
            transparent colour; full size exactly 3840 pixels wide and 160 to 2160 high; bullet point 1024×1024. Apple \
            never replaces an image: a new identifier each time (a new UUID unless --id gives one). It is PENDING until \
            Apple approves it.
            """)

    @Argument(help: "The PNG file.") var file: String
    @Option(name: .long, help: "full or bullet.") var size: String
    @Option(name: .long, help: "The image's identifier, a UUID (default: a new one).") var id: String?
    @OptionGroup var write: WriteOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        _ = try ImageSizeArgument.parse(size)
        _ = try RetentionIdentifier.parse(id, "--id")
    }

    func run() async throws {
        try await runReporting {
            let imageSize = try ImageSizeArgument.parse(size)
            let identifier = try RetentionIdentifier.parse(id, "--id")
            let png = try Self.read(file)
            let violations = RetentionImageCheck.violations(png, as: imageSize)
            guard violations.isEmpty else {
                throw CLIError(
                    "Not sent: \(file) breaks Apple's image rules:\n" + violations.map { "  - \($0)" }.joined(separator: "\n"),
                    hint: "Nothing was sent. Export the image again to these rules (see docs/retention.md).", status: .usage)
            }
            try await withSession(global) { session, printer in
                _ = try await RetentionWrite.send(
                    Endpoints.uploadImage(imageIdentifier: identifier, png: png, imageSize: imageSize),
                    subject: "retention image \(identifier.lowercased)", session: session, yes: write.yes)
                printer.emit(RetentionWriteOutput(environment: session.environment.rawValue, action: "upload-image", imageIdentifier: identifier.lowercased))
                printer.text("Uploaded image \(identifier.lowercased) (\(imageSize.label.lowercased())) to \(session.environmentLabel); it is in review until Apple approves it (retention images list).")
            }
        }
    }

    /// The file's bytes; a missing file, a folder or an unreadable file said plainly.
    static func read(_ path: String) throws -> Data {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw CLIError("Not sent: \(path) does not exist.", hint: "Give the path of a PNG file.", status: .usage)
        }
        guard !isFolder.boolValue else {
            throw CLIError("Not sent: \(path) is a folder, not a PNG file.", hint: "Give the path of a PNG file.", status: .usage)
        }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            // Foundation's descriptions end with a full stop of their own.
            let reason = (error as NSError).localizedDescription.trimmingCharacters(in: CharacterSet(charactersIn: ". "))
            throw CLIError("Not sent: \(path) could not be read: \(reason).", status: .usage)
        }
    }
}

struct RetentionImageDeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete an image no message uses.")

    @Argument(help: "The image's identifier.") var imageId: String
    @OptionGroup var write: WriteOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws { _ = try RetentionIdentifier.parse(imageId, "IMAGE_ID") }

    func run() async throws {
        try await runReporting {
            let identifier = try RetentionIdentifier.parse(imageId, "IMAGE_ID")
            try await withSession(global) { session, printer in
                do {
                    _ = try await RetentionWrite.send(
                        Endpoints.deleteImage(imageIdentifier: identifier), subject: "retention image \(identifier.lowercased)",
                        session: session, yes: write.yes)
                } catch var error as CLIError where error.serverCode == .imageInUse {
                    error.hint = await Self.usersHint(identifier.lowercased, session: session)
                    throw error
                }
                printer.emit(RetentionWriteOutput(environment: session.environment.rawValue, action: "delete-image", imageIdentifier: identifier.lowercased))
                printer.text("Deleted image \(identifier.lowercased) in \(session.environmentLabel).")
            }
        }
    }

    /// The messages that show the image: the demo knows; otherwise the messages uploaded from here
    /// that show it and that Apple still lists (Apple's refusal does not name them).
    static func usersHint(_ image: String, session: Session) async -> String {
        let uploads = await RetentionLedger.uploads(session)
        var users: [String]
        if let demo = session.demo {
            users = demo.retentionMessages(usingImage: image, session.environment)
        } else {
            let listed = Set(((try? await session.client.getMessageList().messageIdentifiers) ?? []).compactMap { $0.messageIdentifier?.lowercased() })
            users = uploads.values.filter { listed.contains($0.identifier) && $0.imageIdentifiers.contains(image) }.map(\.identifier).sorted()
        }
        guard !users.isEmpty else {
            return "Nothing was changed. No message uploaded from this machine shows it; Apple does not say which does. Delete the messages that use it first."
        }
        let named = users.map { RetentionLedger.named($0, uploads) }.joined(separator: ", ")
        return "Nothing was changed. Used by \(users.count == 1 ? "message" : "messages") \(named)\(session.demo == nil ? " (uploaded from here)" : ""): delete \(users.count == 1 ? "it" : "them") first (iapdesk retention messages delete ID)."
    }
}
