import Foundation
import SQLiteNIO

/// Case notes in the SQLite file (schema version 4).
extension SQLiteNotificationStore {
    public func addNote(_ text: String, agent: String, at time: Date, subjects: Set<String>) async throws -> CaseNote {
        let connection = self.connection
        return try await transaction {
            let rows = try await connection.query(
                "INSERT INTO notes (time_ms, agent, text) VALUES (?, ?, ?) RETURNING id", [.integer(Self.ms(time)), .text(agent), .text(text)])
            let id = rows.first?.column("id")?.integer ?? 0
            for subject in subjects.sorted() {
                _ = try await connection.query("INSERT INTO note_subjects (note_id, subject) VALUES (?, ?)", [.integer(id), .text(subject)])
            }
            return CaseNote(id: Int64(id), time: Self.date(.integer(Self.ms(time))), agent: agent, text: text)
        }
    }

    public func notes(concerning subjects: Set<String>) async throws -> [CaseNote] {
        guard !subjects.isEmpty else { return [] }
        var found: [Int64: CaseNote] = [:]
        for chunk in stride(from: 0, to: subjects.count, by: Self.lookupChunk).map({ Array(subjects.sorted()[$0..<min($0 + Self.lookupChunk, subjects.count)]) }) {
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            let sql = "SELECT DISTINCT n.* FROM notes n JOIN note_subjects s ON s.note_id = n.id WHERE s.subject IN (\(marks))"
            let rows = try await gate.run { try await self.connection.query(sql, chunk.map { .text($0) }) }
            for row in rows {
                let id = Int64(row.column("id")?.integer ?? 0)
                found[id] = CaseNote(
                    id: id, time: Self.date(row.column("time_ms")), agent: row.column("agent")?.string ?? "", text: row.column("text")?.string ?? "")
            }
        }
        return found.values.sorted { ($0.time, $0.id) < ($1.time, $1.id) }
    }
}
