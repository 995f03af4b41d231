import AppStoreServerAPI
import ArgumentParser
import DemoServer
import DeskCore
import Foundation

struct RetentionMessagesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "messages", abstract: "List, upload and delete retention messages.",
        subcommands: [RetentionMessagesListCommand.self, RetentionMessageUploadCommand.self, RetentionMessageDeleteCommand.self],
        defaultSubcommand: RetentionMessagesListCommand.self)
}

struct RetentionMessagesListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Every uploaded message with its review state.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await withSession(global) { session, printer in
            let messages = try await session.client.getMessageList().messageIdentifiers ?? []
            let uploads = await RetentionLedger.uploads(session)
            func uploaded(_ item: GetMessageListResponseItem) -> UploadedMessage? { item.messageIdentifier.flatMap { uploads[$0.lowercased()] } }
            printer.emit(RetentionMessageListOutput(
                environment: session.environment.rawValue, messages: messages.map { RetentionMessageRecord($0, uploaded: uploaded($0)) }))
            guard !messages.isEmpty else { return printer.text("No messages in \(session.environmentLabel).") }
            var table = TextTable("MESSAGE", "STATE", "HEADER (FROM THE LEDGER)", "IMAGES")
            for message in messages {
                let upload = uploaded(message)
                table.add(
                    message.messageIdentifier ?? "-", message.messageState?.label ?? "-", upload?.header ?? "-",
                    upload.map { DisplayFormat.count($0.imageIdentifiers.count, "image") } ?? "-")
            }
            printer.text(table.render())
            // Apple's list has no text: say where the headers come from, and why some are missing.
            printer.text("Apple lists identifiers and review states only; headers are from this machine's audit ledger"
                + (messages.contains { uploaded($0) == nil } ? " (- : not uploaded from here)." : "."))
        }
    }
}

struct RetentionMessageUploadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upload", abstract: "Upload a message: a header, a body, and optionally an image and bullet points.",
        discussion: """
            Checked first against Apple's rules, each broken rule said: header up to 66 characters, body up to 144, alt \
            text up to 150, at most 5 bullet points of up to 66 characters each, and a header above the image only with \
            an image. Each --bullet takes a --bullet-image and a --bullet-alt-text, in the same order. Apple never \
            replaces a message: a new identifier each time (a new UUID unless --id gives one). It is PENDING until Apple \
            approves it.
            """)

    @Option(name: .long, help: "The message's identifier, a UUID (default: a new one).") var id: String?
    @Option(name: .long, help: "The header (up to 66 characters).") var header: String
    @Option(name: .long, help: "The body (up to 144 characters).") var body: String
    @Option(name: .long, help: "A full-size image to show, by its identifier.") var image: String?
    @Option(name: .long, help: "The image's alt text (up to 150 characters); required with --image.") var altText: String?
    @Option(name: .long, help: "above-body (the default) or above-image.") var headerPosition: String?
    @Option(name: .long, help: "A bullet point's text (repeatable, up to 5).") var bullet: [String] = []
    @Option(name: .long, help: "The bullet point image of each --bullet, by identifier.") var bulletImage: [String] = []
    @Option(name: .long, help: "The alt text of each --bullet's image.") var bulletAltText: [String] = []
    @OptionGroup var write: WriteOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        _ = try RetentionIdentifier.parse(id, "--id")
        _ = try request()
    }

    /// The request body, from the options; refused with every rule it breaks.
    func request() throws -> UploadMessageRequestBody {
        var position: HeaderPosition?
        switch headerPosition?.lowercased().replacingOccurrences(of: "_", with: "-") {
        case nil: position = nil
        case "above-body": position = .aboveBody
        case "above-image": position = .aboveImage
        default: throw ValidationError("--header-position must be above-body or above-image, not \(headerPosition ?? "").")
        }
        var messageImage: UploadMessageImage?
        switch (image, altText) {
        case (nil, nil): break
        case (let image?, let alt?): messageImage = UploadMessageImage(imageIdentifier: try RetentionIdentifier.parse(image, "--image"), altText: alt)
        case (_?, nil): throw ValidationError("--image needs --alt-text: Apple requires a description of every image.")
        case (nil, _?): throw ValidationError("--alt-text describes an image: give the image with --image.")
        }
        guard bulletImage.count == bullet.count, bulletAltText.count == bullet.count else {
            throw ValidationError("Each --bullet needs one --bullet-image and one --bullet-alt-text (given: \(DisplayFormat.count(bullet.count, "bullet")), \(DisplayFormat.count(bulletImage.count, "image")), \(DisplayFormat.count(bulletAltText.count, "alt text"))).")
        }
        let bullets = try bullet.indices.map { index in
            BulletPoint(text: bullet[index], imageIdentifier: try RetentionIdentifier.parse(bulletImage[index], "--bullet-image"), altText: bulletAltText[index])
        }
        let message = UploadMessageRequestBody(
            header: header, body: body, image: messageImage, headerPosition: position, bulletPoints: bullets.isEmpty ? nil : bullets)
        let violations = message.violations
        guard violations.isEmpty else {
            throw ValidationError("The message breaks Apple's rules:\n" + violations.map { "  - \($0)" }.joined(separator: "\n"))
        }
        return message
    }

    func run() async throws {
        try await runReporting {
            let identifier = try RetentionIdentifier.parse(id, "--id")
            let message = try request()
            try await withSession(global) { session, printer in
                try await Self.checkImages(message, session: session)
                _ = try await RetentionWrite.send(
                    Endpoints.uploadMessage(messageIdentifier: identifier, request: message),
                    subject: "retention message \(identifier.lowercased)", session: session, yes: write.yes)
                printer.emit(RetentionWriteOutput(environment: session.environment.rawValue, action: "upload-message", messageIdentifier: identifier.lowercased))
                printer.text("Uploaded message \(identifier.lowercased) to \(session.environmentLabel); it is in review until Apple approves it (retention messages list).")
            }
        }
    }
}

extension RetentionMessageUploadCommand {
    /// The images the message names, looked up in the environment's image list before anything is
    /// sent: Apple would take a message naming an image it does not have, and refuse it only
    /// later as a default (ImageNotApprovedError).
    static func checkImages(_ message: UploadMessageRequestBody, session: Session) async throws {
        let uses = message.imageUses
        guard !uses.isEmpty else { return }
        let images = try await session.client.getImageList().imageIdentifiers ?? []
        let sizes = Dictionary(images.compactMap { item in item.imageIdentifier.map { ($0.lowercased(), item.imageSize) } }, uniquingKeysWith: { first, _ in first })
        for use in uses {
            guard let size = sizes[use.imageIdentifier] else {
                throw CLIError(
                    "Not sent: \(use.place), \(use.imageIdentifier), does not exist in \(session.environmentLabel): it was never uploaded there, or was deleted.",
                    hint: "iapdesk retention images list shows the images there are; upload one with iapdesk retention images upload FILE --size \(use.size == .fullSize ? "full" : "bullet").",
                    status: .notFound)
            }
            if let size, size != use.size {
                throw CLIError(
                    "Not sent: \(use.place), \(use.imageIdentifier), is a \(size.label.lowercased()) image; this place takes a \(use.size.label.lowercased()) one.",
                    hint: use.size == .fullSize
                        ? "Give a full-size image (3840 pixels wide) with --image, and bullet point images with --bullet-image."
                        : "Give a bullet point image (1024×1024) with --bullet-image, and the full-size image with --image.",
                    status: .usage)
            }
        }
    }
}

struct RetentionMessageDeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a message.")

    @Argument(help: "The message's identifier.") var messageId: String
    @OptionGroup var write: WriteOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws { _ = try RetentionIdentifier.parse(messageId, "MESSAGE_ID") }

    func run() async throws {
        try await runReporting {
            let identifier = try RetentionIdentifier.parse(messageId, "MESSAGE_ID")
            try await withSession(global) { session, printer in
                // The demo knows the defaults that name the message (Apple's answers do not say).
                let defaults = session.demo?.retentionDefaults(naming: identifier.lowercased, session.environment)
                _ = try await RetentionWrite.send(
                    Endpoints.deleteMessage(messageIdentifier: identifier), subject: "retention message \(identifier.lowercased)",
                    session: session, yes: write.yes)
                printer.emit(RetentionWriteOutput(
                    environment: session.environment.rawValue, action: "delete-message", messageIdentifier: identifier.lowercased,
                    removedDefaults: defaults?.map { RetentionDefaultSlotRecord(productId: $0.productId, locale: $0.locale) }))
                printer.text("Deleted message \(identifier.lowercased) in \(session.environmentLabel).")
                switch defaults {
                case nil:
                    printer.text("A default message that named it no longer shows; iapdesk retention default list shows which products and locales have one.")
                case let defaults? where defaults.isEmpty:
                    printer.text("No default message named it.")
                case let defaults?:
                    printer.text("Removed with it, as the default message of: " + defaults.map { "\($0.productId) in \($0.locale)" }.joined(separator: ", ") + ".")
                }
            }
        }
    }
}
