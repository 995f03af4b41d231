import DeskStore

/// A stored row carries its latest delivery's forward only: one delivered to the app by an earlier
/// delivery's forward (an Apple retry failing to forward afterwards) reached the app.
public enum ForwardHistory {
    /// Takes the rows and gives them back changed in place: a caller that passes its last use of
    /// them (`consume rows`) holds a window's rows once, never a copy beside them.
    public static func settled(_ rows: consuming [StoredNotification], in store: any NotificationStore) async throws -> [StoredNotification] {
        for index in rows.indices {
            let row = rows[index]
            if row.deliveryCount > 1, let status = row.forwardStatus.map({ (200...299).contains($0) }) ?? (row.forwardResult == nil ? nil : false), !status {
                if let delivered = try await store.deliveries(ofNotification: row.id).last(where: { ($0.forwardStatus.map { (200...299).contains($0) }) ?? false }) {
                    rows[index].forwardStatus = delivered.forwardStatus
                    rows[index].forwardResult = delivered.forwardResult
                }
            }
        }
        return rows
    }
}
