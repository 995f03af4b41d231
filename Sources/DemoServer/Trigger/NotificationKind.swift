import AppStoreServerAPI
import Foundation

/// A notification type and subtype pair that Apple documents, such as `DID_FAIL_TO_RENEW/GRACE_PERIOD`.
/// The pairs come from the library's `NotificationType.allowedSubtypes`, so a type or subtype the
/// library learns is accepted here too.
public struct NotificationKind: Sendable, Hashable, CustomStringConvertible {
    public let type: NotificationType
    public let subtype: NotificationSubtype?

    public init(_ type: NotificationType, _ subtype: NotificationSubtype? = nil) {
        self.type = type
        self.subtype = subtype
    }

    /// `TYPE` or `TYPE/SUBTYPE`, as Apple spells them.
    public var description: String { subtype.map { "\(type.rawValue)/\($0.rawValue)" } ?? type.rawValue }

    /// Every pair Apple documents, in the order of Apple's type list, each type's bare form (when
    /// Apple sends it without a subtype) before its subtypes.
    public static var documented: [NotificationKind] {
        NotificationType.knownValues.flatMap { type -> [NotificationKind] in
            let allowed = type.allowedSubtypes
            return (allowed.withoutSubtype ? [NotificationKind(type)] : []) + allowed.subtypes.map { NotificationKind(type, $0) }
        }
    }

    /// What `type` takes, in words: "INITIAL_BUY or RESUBSCRIBE", "BILLING_RECOVERY, or none".
    public static func subtypesInWords(_ type: NotificationType) -> String {
        let allowed = type.allowedSubtypes
        let names = allowed.subtypes.map(\.rawValue)
        if names.isEmpty { return "no subtype" }
        let listed = names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " or " + names.last!
        return allowed.withoutSubtype ? "\(listed), or none" : listed
    }

    /// Reads `TYPE` or `TYPE/SUBTYPE`, in any case, `-` or `_` between words.
    public static func parse(_ text: String) throws(TriggerError) -> NotificationKind {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces).uppercased().replacingOccurrences(of: "-", with: "_")
        }
        let typeName = parts[0]
        guard let type = NotificationType.knownValues.first(where: { $0.rawValue == typeName }) else {
            throw TriggerError(
                typeName.isEmpty ? "No notification type given." : "\(typeName) is not a notification type Apple documents.",
                hint: "Types: " + NotificationType.knownValues.map(\.rawValue).joined(separator: ", ") + ".", kind: .usage)
        }
        let allowed = type.allowedSubtypes
        guard parts.count == 2 else {
            guard allowed.withoutSubtype else {
                throw TriggerError(
                    "\(typeName) needs a subtype: \(subtypesInWords(type)).",
                    hint: "Such as \(typeName)/\(allowed.subtypes[0].rawValue).", kind: .usage)
            }
            return NotificationKind(type)
        }
        let subtypeName = parts[1]
        guard let subtype = allowed.subtypes.first(where: { $0.rawValue == subtypeName }) else {
            if allowed.subtypes.isEmpty {
                throw TriggerError("\(typeName) has no subtype; \(subtypeName.isEmpty ? "nothing" : subtypeName) was given after the /.", hint: "Give \(typeName) alone.", kind: .usage)
            }
            let known = NotificationSubtype.knownValues.contains { $0.rawValue == subtypeName }
            throw TriggerError(
                "\(subtypeName.isEmpty ? "An empty subtype" : subtypeName) is not \(known ? "a subtype of \(typeName)" : "a subtype Apple documents").",
                hint: "\(typeName) takes \(subtypesInWords(type)): " + ((allowed.withoutSubtype ? [typeName] : []) + allowed.subtypes.map { "\(typeName)/\($0.rawValue)" })
                    .joined(separator: ", ") + ".",
                kind: .usage)
        }
        return NotificationKind(type, subtype)
    }
}

/// Why a notification could not be made, with a hint; `kind` says whether the input was wrong or an ID unknown.
public struct TriggerError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable { case usage, notFound }
    public let message: String
    public let hint: String?
    public let kind: Kind

    public init(_ message: String, hint: String? = nil, kind: Kind) {
        self.message = message
        self.hint = hint
        self.kind = kind
    }

    public var description: String { message }
}
