import Foundation

extension CustomerState {
    /// The original transactions of every purchase known so far: what a write for the customer is
    /// sent to, and what the store files their notifications under.
    public var originalTransactionIds: [String] {
        var ids = Set(subscriptions.value?.map(\.originalTransactionId) ?? [])
        for row in (history.value ?? []) + (order.value?.transactions ?? []) {
            if let id = row.payload?.originalTransactionId { ids.insert(id) }
        }
        if let id = transaction.value?.payload?.originalTransactionId { ids.insert(id) }
        return ids.sorted()
    }

    /// Every ID the customer is known by so far: what was typed, the original transactions, every
    /// purchase. Notes are filed under any of them.
    public var noteSubjects: Set<String> {
        var ids = Set(originalTransactionIds)
        ids.insert(query)
        if let anchorId { ids.insert(anchorId) }
        for row in history.value ?? [] {
            if let id = row.payload?.transactionId { ids.insert(id) }
        }
        return ids
    }
}
