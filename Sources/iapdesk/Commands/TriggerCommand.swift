import AppStoreServerAPI
import ArgumentParser
import DemoServer
import DeskCore
import Foundation

struct TriggerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trigger",
        abstract: "Send a signed App Store Server Notification of any type to your own handler.",
        discussion: """
            Makes a Notification V2 of the type and subtype given (any pair Apple documents), about a customer of the demo's data \
            (--customer; by default one whose story fits the type), fills the transaction and renewal info as Apple would for that \
            type (a REFUND's revocation, a grace period's end, a consumption request's reason), changes any field with --set, signs \
            it with the demo's chain, and POSTs {"signedPayload": ...} to --to, printing the answer. A new notificationUUID and \
            signedDate every time. `iapdesk listen --demo` trusts the same chain; your own handler trusts the root certificate \
            --write-root writes (only for testing). Nothing is added to the demo's notification history. Exit 0 when the URL \
            answered 2xx, 10 when it did not, 64 for a type, subtype, --set or URL that is wrong, 2 for an unknown customer. \
            See docs/webhooks.md.

            Types and subtypes (a type listed alone takes none):
            \(Self.kindsList)
            """)

    static var kindsList: String {
        NotificationType.knownValues.map { type in
            "  \(type.rawValue)" + (type.allowedSubtypes.subtypes.isEmpty ? "" : ": " + NotificationKind.subtypesInWords(type))
        }.joined(separator: "\n")
    }

    @Argument(help: ArgumentHelp("TYPE or TYPE/SUBTYPE, such as REFUND or did_fail_to_renew/grace_period.", valueName: "type[/subtype]"))
    var kind: String

    @Option(name: .long, help: ArgumentHelp("POST it here (your handler's URL).", valueName: "url")) var to: String?
    @Flag(name: .customLong("print"), help: "Print the body ({\"signedPayload\": ...}) only, send nothing.") var printOnly = false
    @Option(name: .long, help: ArgumentHelp(
        "The demo customer it concerns: an original transaction, transaction, order or app transaction ID, or app account token (docs/demo.md). Default: one whose story fits the type.",
        valueName: "id"))
    var customer: String?
    @Option(name: .customLong("set"), help: ArgumentHelp("Change a field before signing (repeatable). \(FieldAssignment.keyHelp)", valueName: "key=value"))
    var assignments: [String] = []
    @Option(name: .long, help: "Production or Sandbox: the environment it claims, and the demo data it is made from (default Production, as listen --demo expects).") var environment: String = "Production"
    @Option(name: .long, help: ArgumentHelp("The bundle ID it carries (default the demo's, com.iapdesk.demo).", valueName: "id")) var bundleId: String?
    @Option(name: .long, help: ArgumentHelp("Seconds the POST may take.", valueName: "seconds")) var sendTimeout: Double = 10
    @Option(name: .long, help: ArgumentHelp("Also write the demo chain's root certificate (DER) here, for your handler to trust.", valueName: "file"))
    var writeRoot: String?
    @Flag(name: .long, help: "Print one JSON document: the notification, the customer and the answer.") var json = false

    func validate() throws {
        guard sendTimeout.isFinite, sendTimeout > 0, sendTimeout <= 600 else {
            throw ValidationError("--send-timeout must be more than 0 and at most 600 seconds.")
        }
        if printOnly && to != nil { throw ValidationError("--print sends nothing: give --print or --to, not both.") }
        if !printOnly && to == nil { throw ValidationError("Say where to send it with --to URL, or print it with --print.") }
        if printOnly && json { throw ValidationError("--print prints the body as JSON already: leave out --json.") }
    }

    func run() async throws {
        try await runReporting {
            let kind = try Self.usage { () throws(TriggerError) in try NotificationKind.parse(self.kind) }
            let assignments = try assignments.map { text in try Self.usage { () throws(TriggerError) in try FieldAssignment.parse(text) } }
            let environment: AppStoreEnvironment
            switch self.environment.lowercased() {
            case "sandbox": environment = .sandbox
            case "production": environment = .production
            default: throw CLIError("--environment takes Sandbox or Production, not \(self.environment).", status: .usage)
            }
            let target = try to.map { try ReplaySender.target($0) }
            if let bundleId, bundleId.trimmingCharacters(in: .whitespaces).isEmpty {
                throw CLIError("--bundle-id is empty.", status: .usage)
            }

            // The demo's kept chain: the one every --demo command, listen --demo included, trusts.
            let session = try await Session.openDemo(environment: environment.rawValue)
            guard let demo = session.demo else {
                await session.close()
                throw CLIError("The demo did not start.", status: .failure)
            }
            let triggered: TriggeredNotification
            do {
                triggered = try Self.usage { () throws(TriggerError) in
                    try demo.trigger(TriggerRequest(
                        kind: kind, customer: customer, environment: environment, bundleId: bundleId, assignments: assignments))
                }
                if let writeRoot {
                    do {
                        try demo.rootCertificateDER.write(to: URL(fileURLWithPath: writeRoot))
                    } catch {
                        throw CLIError("The root certificate cannot be written to \(writeRoot): \(error.localizedDescription)", status: .failure)
                    }
                }
            } catch {
                await session.close()
                throw error
            }
            await session.close()

            guard let target else {
                StandardStreams.output(triggered.body + Data("\n".utf8))
                return
            }
            let shownTarget = ReplaySender.redacted(target)
            let answer = await TriggerPoster(target: target, timeout: sendTimeout).post(triggered.body)
            let printer = Printer(json: json)
            printer.emit(TriggerOutput(triggered, answer: answer, target: shownTarget, root: writeRoot))
            let shown = TriggerPoster.shown(answer.body)
            var lines = [
                "Sent \(triggered.kind) (\(triggered.environment.label)) \(triggered.notificationUUID) to \(shownTarget): "
                    + "\(answer.summary) in \(String(format: "%.0f", answer.milliseconds)) ms.",
            ]
            if let customer = triggered.customer {
                let purchase = [customer.transactionId.map { "transaction \($0)" }, customer.productId].compactMap { $0 }.joined(separator: ", ")
                lines.append("  Customer: \(customer.scenario)\(purchase.isEmpty ? "" : " (\(purchase))"), \(customer.chosen).")
            }
            if answer.status != nil { lines.append("  Answer: \(shown.text)") }
            lines.append("  Signed by the demo's chain\(writeRoot.map { "; its root certificate is in \($0)" } ?? " (--write-root FILE saves its root certificate for your handler to trust)").")
            printer.text(lines.joined(separator: "\n"))
            guard answer.accepted else {
                throw CLIError("\(shownTarget) did not take it: \(answer.summary).", hint: Self.hint(answer, environment: environment), status: .gapsFound)
            }
        }
    }

    /// A TriggerError as the command line reports it: a wrong input is a usage error (64), an unknown customer not found (2).
    static func usage<T>(_ body: () throws(TriggerError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw CLIError(error.message, hint: error.hint, status: error.kind == .usage ? .usage : .notFound)
        }
    }

    /// What to check when the URL did not take the notification.
    static func hint(_ answer: TriggerPoster.Answer, environment: AppStoreEnvironment) -> String {
        let text = String(decoding: answer.body, as: UTF8.self).lowercased()
        // A Sandbox notification carries no app Apple ID, which a Production receiver requires.
        if answer.status == 400,
           text.contains("environment") || text.contains(", not sandbox") || text.contains(", not production") || text.contains("app apple id (none)") {
            let other: AppStoreEnvironment = environment == .sandbox ? .production : .sandbox
            return "The receiver expects another environment: trigger with --environment \(other.rawValue), or start `iapdesk listen --demo --environment \(environment.rawValue)`."
        }
        if answer.status == 400, text.contains("chain") || text.contains("signature") || text.contains("certificate") {
            return "The receiver does not trust the demo's chain: give it the root certificate --write-root writes (listen --demo trusts it already)."
        }
        if answer.status == nil { return "Check the URL and that the handler is running." }
        return "Check the handler's logs for this notificationUUID."
    }
}

/// `trigger --json`: the notification made, the demo customer it was made from, and how the URL answered.
struct TriggerOutput: Encodable {
    struct Customer: Encodable {
        var scenario: String
        var originalTransactionId: String?
        var transactionId: String?
        var productId: String?
        var chosen: String
    }

    var notificationType: NotificationType
    var subtype: NotificationSubtype?
    var notificationUUID: String
    var environment: AppStoreEnvironment
    var signedPayload: String
    var rootCertificate: String?
    var signedDate: String?
    var signedDateMs: Int64?
    var customer: Customer?
    // When it was sent: where, and the answer (its first 4 KiB).
    var target: String?
    var result: String?
    var status: Int?
    var ms: Double?
    var accepted: Bool?
    var answer: String?
    var answerBytes: Int?
    var answerTruncated: Bool?

    init(_ triggered: TriggeredNotification, answer: TriggerPoster.Answer?, target: String?, root: String?) {
        (notificationType, subtype) = (triggered.kind.type, triggered.kind.subtype)
        (notificationUUID, environment, signedPayload, rootCertificate) = (triggered.notificationUUID, triggered.environment, triggered.signedPayload, root)
        (signedDate, signedDateMs) = DatePair.of(triggered.signedDate)
        customer = triggered.customer.map {
            Customer(scenario: $0.scenario, originalTransactionId: $0.originalTransactionId, transactionId: $0.transactionId, productId: $0.productId, chosen: $0.chosen)
        }
        if let answer, let target {
            let text = String(data: answer.body, encoding: .utf8)
            let limit = 4_096
            (self.target, result, status) = (target, answer.summary, answer.status)
            (ms, accepted) = ((answer.milliseconds * 10).rounded() / 10, answer.accepted)
            self.answer = text.map { String($0.prefix(limit)) }
            (answerBytes, answerTruncated) = (answer.body.count, (text?.count ?? 0) > limit)
        }
    }
}
