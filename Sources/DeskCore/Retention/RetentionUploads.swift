import AppStoreServerAPI
import Foundation

/// A message as it was uploaded from this machine, read back from the audit ledger: Apple's Get
/// Message List names each message by identifier and review state only, never its text.
public struct UploadedMessage: Sendable, Equatable {
    public var identifier: String
    public var header: String
    public var body: String
    /// The full-size image shown with the message.
    public var image: String?
    /// The bullet points' images, in order.
    public var bulletImages: [String]

    /// Every image the message shows.
    public var imageIdentifiers: [String] { (image.map { [$0] } ?? []) + bulletImages }
}

public enum RetentionUploads {
    /// The messages Apple accepted from uploads in `records` made for `account`, by lowercased
    /// identifier (a later upload under the same identifier, refused by Apple, changes nothing).
    public static func messages(in records: [WriteRecord], account: WriteAccount) -> [String: UploadedMessage] {
        var found: [String: UploadedMessage] = [:]
        for record in records where record.account == account && record.intent.method == "PUT" && record.lastOutcome?.outcome == .applied {
            let path = record.intent.path.split(separator: "/")
            // PUT /inApps/v1/messaging/message/{messageIdentifier}
            guard path.count == 5, path[2] == "messaging", path[3] == "message",
                  let body = record.intent.body, let request = try? JSONDecoder().decode(UploadMessageRequestBody.self, from: Data(body.utf8))
            else { continue }
            let identifier = String(path[4]).lowercased()
            guard found[identifier] == nil else { continue }
            found[identifier] = UploadedMessage(
                identifier: identifier, header: request.header, body: request.body, image: request.image?.imageIdentifier.lowercased(),
                bulletImages: (request.bulletPoints ?? []).map { $0.imageIdentifier.lowercased() })
        }
        return found
    }
}
