import AppStoreServerAPI
import ArgumentParser
import DeskCore
import Foundation

struct RetentionDefaultCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "default", abstract: "List, get, set and delete the default message of a product in a locale.",
        discussion: """
            Apple shows the default message when it has no real-time answer. It must be an approved message whose images \
            are approved. A locale is written language-REGION whatever the case typed (en-us is en-US).
            """,
        subcommands: [
            RetentionDefaultListCommand.self, RetentionDefaultGetCommand.self, RetentionDefaultSetCommand.self, RetentionDefaultDeleteCommand.self,
        ])
}

/// The product and locale a default message is for.
struct DefaultMessageTarget: ParsableArguments {
    @Argument(help: "The subscription's product ID.") var productId: String
    @Argument(help: ArgumentHelp("A language and region, such as en-US.", valueName: "locale")) var givenLocale: String

    /// The locale as Apple keeps it: `EN-us` is `en-US`.
    var locale: String { RetentionLocale.normalized(givenLocale) }

    func validate() throws {
        guard !productId.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("PRODUCT_ID is empty.") }
        guard RetentionLocale.isValid(givenLocale) else {
            throw ValidationError("LOCALE \(givenLocale) is not a language and region joined by a hyphen, such as en-US or fr-FR.")
        }
    }
}

struct RetentionDefaultGetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "get", abstract: "The default message of a product in a locale.")

    @OptionGroup var target: DefaultMessageTarget
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await withSession(global) { session, printer in
            let answer = try await session.client.getDefaultMessage(productId: target.productId, locale: target.locale)
            printer.emit(RetentionDefaultOutput(
                environment: session.environment.rawValue, productId: target.productId, locale: target.locale, messageIdentifier: answer.messageIdentifier))
            printer.text("Default message of \(target.productId) in \(target.locale): \(answer.messageIdentifier ?? "none") (\(session.environmentLabel)).")
        }
    }
}

struct RetentionDefaultSetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "set", abstract: "Make an approved message the default of a product in a locale.")

    @OptionGroup var target: DefaultMessageTarget
    @Option(name: .long, help: "The approved message's identifier.") var message: String
    @OptionGroup var write: WriteOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws { _ = try RetentionIdentifier.parse(message, "--message") }

    func run() async throws {
        try await runReporting {
            let identifier = try RetentionIdentifier.parse(message, "--message")
            try await withSession(global) { session, printer in
                _ = try await RetentionWrite.send(
                    Endpoints.configureDefaultMessage(
                        productId: target.productId, locale: target.locale, request: DefaultConfigurationRequest(messageIdentifier: identifier)),
                    subject: "default message of \(target.productId) in \(target.locale)", session: session, yes: write.yes)
                printer.emit(RetentionWriteOutput(
                    environment: session.environment.rawValue, action: "set-default-message", messageIdentifier: identifier.lowercased,
                    productId: target.productId, locale: target.locale))
                printer.text("Default message of \(target.productId) in \(target.locale) is now \(identifier.lowercased) (\(session.environmentLabel)).")
            }
        }
    }
}

struct RetentionDefaultDeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Remove the default message of a product in a locale.")

    @OptionGroup var target: DefaultMessageTarget
    @OptionGroup var write: WriteOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await withSession(global) { session, printer in
            _ = try await RetentionWrite.send(
                Endpoints.deleteDefaultMessage(productId: target.productId, locale: target.locale),
                subject: "default message of \(target.productId) in \(target.locale)", session: session, yes: write.yes)
            printer.emit(RetentionWriteOutput(
                environment: session.environment.rawValue, action: "delete-default-message", productId: target.productId, locale: target.locale))
            printer.text("Removed the default message of \(target.productId) in \(target.locale) (\(session.environmentLabel)).")
        }
    }
}
