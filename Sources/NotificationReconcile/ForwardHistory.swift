import DeskStore

/// A stored row carries its latest delivery's forward only: one delivered to the app by an earlier
/// delivery's forward (an Apple retry failing to forward afterwards) reached the app.
public enum ForwardHistory {
    public static func settled(_ rows: [StoredNotification], in store: any NotificationStore) async throws -> [StoredNotification] {
        var settled: [StoredNotification] = []
        for var row in rows {
            if row.deliveryCount > 1, let status = row.forwardStatus.map({ (200...299).contains($0) }) ?? (row.forwardResult == nil ? nil : false), !status {
                if let delivered = try await store.deliveries(ofNotification: row.id).last(where: { ($0.forwardStatus.map { (200...299).contains($0) }) ?? false }) {
                    row.forwardStatus = delivered.forwardStatus
                    row.forwardResult = delivered.forwardResult
                }
            }
            settled.append(row)
        }
        return settled
    }
}
