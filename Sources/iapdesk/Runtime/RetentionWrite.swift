import AppStoreServerAPI
import ArgumentParser
import DeskCore
import Foundation

/// A Retention Messaging write from the command line: confirmed, recorded in the audit ledger
/// before it is sent and after, like every write. Apple applies none of them twice on its own
/// (a second upload is refused 409, a second delete 404), so the identifier is the ledger's.
enum RetentionWrite {
    static func send<Response: Sendable>(
        _ endpoint: Endpoint<Response>, subject: String, session: Session, yes: Bool, client: AppStoreServerClient? = nil
    ) async throws -> Response {
        var write = CommandLineWrite(
            kind: .retention, subject: subject, endpoint: { _ in endpoint }, givenIdentifier: nil, identifierIsSent: false)
        write.client = client
        return try await write.run(session: session, yes: yes).response
    }
}

/// A UUID typed on the command line (checked in `validate()`), or a new one when none was given.
enum RetentionIdentifier {
    static func parse(_ text: String?, _ option: String) throws -> UUID {
        guard let text else { return UUID() }
        guard let id = UUID(uuidString: text.trimmingCharacters(in: .whitespaces)) else {
            throw ValidationError("\(option) \(text) is not a UUID, such as 3db5c98d-8acf-4e29-831e-8e1f82f9f6e9.")
        }
        return id
    }
}

/// What this machine's audit ledger says was uploaded to the session's environment: Apple's
/// message list gives identifiers and review states only.
enum RetentionLedger {
    /// The uploaded messages by lowercased identifier; empty when the ledger cannot be read.
    static func uploads(_ session: Session, client: AppStoreServerClient? = nil) async -> [String: UploadedMessage] {
        guard let context = try? await session.writeContext(source: .commandLine), let records = try? await context.ledger.writes() else { return [:] }
        return RetentionUploads.messages(in: records, account: context.account(for: client ?? session.client))
    }

    /// "3db5c98d-… "Stay with Pro"", or the identifier alone when its header is not known here.
    static func named(_ identifier: String, _ uploads: [String: UploadedMessage]) -> String {
        uploads[identifier.lowercased()].map { "\(identifier) \"\($0.header)\"" } ?? identifier
    }
}
