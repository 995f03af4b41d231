import Crypto
import Foundation
import Synchronization

/// The bodies refused lately for what they contain, by SHA-256: the same body sent again is refused
/// for the same reason without being parsed or verified again (its verdict cannot change while the
/// receiver runs). At most `capacity` are remembered; the least recently seen goes first.
final class RefusedBodies: Sendable {
    let capacity: Int
    private struct State {
        var refusals: [String: (refusal: NotificationIntake.Refused, used: UInt64)] = [:]
        var clock: UInt64 = 0
    }
    private let state = Mutex(State())

    init(capacity: Int = 4096) {
        self.capacity = capacity
    }

    private static let digits = Array("0123456789abcdef".utf8)

    static func hash(_ body: Data) -> String {
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        for byte in SHA256.hash(data: body) {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }

    /// Nothing refused is remembered: no body need be hashed to be looked up.
    var isEmpty: Bool { state.withLock { $0.refusals.isEmpty } }

    func refusal(for hash: String) -> NotificationIntake.Refused? {
        state.withLock { state in
            guard let found = state.refusals[hash] else { return nil }
            state.clock += 1
            state.refusals[hash] = (found.refusal, state.clock)
            return found.refusal
        }
    }

    func remember(_ refusal: NotificationIntake.Refused, for hash: String) {
        state.withLock { state in
            state.clock += 1
            state.refusals[hash] = (refusal, state.clock)
            guard state.refusals.count > capacity else { return }
            // Down to three quarters at once: one sort per quarter of the capacity, not per body.
            let keep = state.refusals.sorted { $0.value.used > $1.value.used }.prefix(capacity * 3 / 4)
            state.refusals = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
        }
    }
}
