import DeskStore
import Foundation
import PostgresNIO

/// Case notes on the team's server (schema version 4): every agent reads every agent's.
extension PostgresNotificationStore: NoteStore {
    public func addNote(_ text: String, agent: String, at time: Date, subjects: Set<String>) async throws -> CaseNote {
        let time = Self.rounded(time)
        return try await run {
            try await self.client.withTransaction(logger: Self.logger) { connection in
                let rows = try await connection.query(
                    "INSERT INTO notes (time, agent, text) VALUES (\(time), \(agent), \(text)) RETURNING id", logger: Self.logger)
                var id: Int64 = 0
                for try await value in rows.decode(Int64.self) { id = value }
                for subject in subjects.sorted() {
                    try await connection.query("INSERT INTO note_subjects (note_id, subject) VALUES (\(id), \(subject))", logger: Self.logger)
                }
                return CaseNote(id: id, time: time, agent: agent, text: text)
            }
        }
    }

    public func notes(concerning subjects: Set<String>) async throws -> [CaseNote] {
        guard !subjects.isEmpty else { return [] }
        return try await rows(
            """
            SELECT DISTINCT n.id, n.time, n.agent, n.text FROM notes n JOIN note_subjects s ON s.note_id = n.id
            WHERE s.subject = ANY(\(subjects.sorted())) ORDER BY n.time, n.id
            """
        ) { row in
            CaseNote(
                id: try row["id"].decode(Int64.self), time: Self.rounded(try row["time"].decode(Date.self)), agent: try row["agent"].decode(String.self),
                text: try row["text"].decode(String.self))
        }
    }
}
