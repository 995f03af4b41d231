import DeskStore

/// A stored row carries its latest delivery's forward only: one delivered to the app by an earlier
/// delivery's forward (an Apple retry failing to forward afterwards) reached the app.
public enum ForwardHistory {
    public static func settled(_ rows: [StoredNotification], in store: any NotificationStore) async throws -> [StoredNotification] {
        // Changed in place: the rows are not copied into a second array.
        var settled = rows
        for index in settled.indices {
            let row = settled[index]
            if row.deliveryCount > 1, let status = row.forwardStatus.map({ (200...299).contains($0) }) ?? (row.forwardResult == nil ? nil : false), !status {
                if let delivered = try await store.deliveries(ofNotification: row.id).last(where: { ($0.forwardStatus.map { (200...299).contains($0) }) ?? false }) {
                    settled[index].forwardStatus = delivered.forwardStatus
                    settled[index].forwardResult = delivered.forwardResult
                }
            }
        }
        return settled
    }
}
