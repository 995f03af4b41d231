import Foundation

/// Short notes about a customer, by agent and time, kept in the store so that every agent on a
/// team's store reads them: in the customer summary, the case file and `iapdesk note`.
public protocol NoteStore: Sendable {
    /// Adds a note about the customer known by `subjects` (an order ID, transaction IDs).
    func addNote(_ text: String, agent: String, at time: Date, subjects: Set<String>) async throws -> CaseNote
    /// The notes about any of `subjects`, oldest first, each once.
    func notes(concerning subjects: Set<String>) async throws -> [CaseNote]
}

public struct CaseNote: Sendable, Equatable {
    public var id: Int64
    public var time: Date
    public var agent: String
    public var text: String

    public init(id: Int64, time: Date, agent: String, text: String) {
        self.id = id
        self.time = time
        self.agent = agent
        self.text = text
    }

    /// Notes are one line of at most this many characters.
    public static let maxLength = 500
}
