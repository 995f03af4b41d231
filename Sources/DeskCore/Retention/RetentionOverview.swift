import AppStoreServerAPI
import Foundation

/// A product and a locale whose default message is asked for (Apple has no "list all" endpoint).
public struct DefaultMessageSlot: Sendable, Hashable {
    public var productId: String
    public var locale: String

    public init(productId: String, locale: String) {
        self.productId = productId
        self.locale = locale
    }
}

/// One answer of the Retention Messaging reads, as it arrives.
public enum RetentionPart: Sendable {
    case images(Result<[GetImageListResponseItem], DisplayError>)
    case messages(Result<[GetMessageListResponseItem], DisplayError>)
    /// Nil: no realtime URL is configured in this environment (Apple's 404 4040021).
    case realtimeURL(Result<String?, DisplayError>)
    /// Nil: no default message for this product and locale (Apple's 404 4040020).
    case defaultMessage(DefaultMessageSlot, Result<String?, DisplayError>)
}

/// The Retention Messaging configuration of one environment as read: messages, images, the
/// realtime URL and the default messages of the slots asked, each loaded or failed on its own.
public struct RetentionOverview: Sendable {
    public var environment: AppStoreEnvironment
    public var images: Loadable<[GetImageListResponseItem]> = .loading
    public var messages: Loadable<[GetMessageListResponseItem]> = .loading
    public var realtimeURL: Loadable<String?> = .loading
    /// The slots asked, in the order they are shown.
    public let slots: [DefaultMessageSlot]
    public var defaults: [DefaultMessageSlot: Loadable<String?>]
    /// When the reads started.
    public var readAt: Date

    public init(environment: AppStoreEnvironment, slots: [DefaultMessageSlot], readAt: Date) {
        self.environment = environment
        self.slots = slots
        self.readAt = readAt
        self.defaults = Dictionary(uniqueKeysWithValues: slots.map { ($0, Loadable<String?>.loading) })
    }

    public mutating func apply(_ part: RetentionPart) {
        switch part {
        case .images(let result): images = Loadable(result)
        case .messages(let result): messages = Loadable(result)
        case .realtimeURL(let result): realtimeURL = Loadable(result)
        case .defaultMessage(let slot, let result):
            guard defaults[slot] != nil else { return }
            defaults[slot] = Loadable(result)
        }
    }

    /// Every part has answered.
    public var isComplete: Bool {
        !images.isLoading && !messages.isLoading && !realtimeURL.isLoading && !defaults.values.contains { $0.isLoading }
    }

    /// The review state of a message, when the message list has it (a default message names a message).
    public func messageState(_ identifier: String) -> RetentionReviewState? {
        messages.value?.first { $0.messageIdentifier?.lowercased() == identifier.lowercased() }?.messageState
    }
}
