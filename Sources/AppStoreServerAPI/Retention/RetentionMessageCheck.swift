import Foundation

/// Apple's documented rules for an uploaded message, each with the error Apple answers when it is
/// broken: checked before sending, and by the demo on receipt. Lengths are counted in characters
/// as a person sees them.
public struct RetentionRuleViolation: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: APIErrorCode
    public let description: String

    public init(_ code: APIErrorCode, _ description: String) {
        self.code = code
        self.description = description
    }
}

extension UploadMessageRequestBody {
    /// Every rule the message breaks, in the order its fields are written; empty when none.
    public var violations: [RetentionRuleViolation] {
        typealias L = RetentionLimits
        var found: [RetentionRuleViolation] = []
        if header.isEmpty { found.append(.init(.generalBadRequest, "The header is empty; every message needs one.")) }
        if header.count > L.headerLength {
            found.append(.init(.headerTooLong, "The header is \(header.count) characters; Apple allows \(L.headerLength)."))
        }
        if body.isEmpty { found.append(.init(.generalBadRequest, "The body is empty; every message needs one.")) }
        if body.count > L.bodyLength {
            found.append(.init(.bodyTooLong, "The body is \(body.count) characters; Apple allows \(L.bodyLength)."))
        }
        if let image, image.altText.count > L.altTextLength {
            found.append(.init(.altTextTooLong, "The image's alt text is \(image.altText.count) characters; Apple allows \(L.altTextLength)."))
        }
        let bullets = bulletPoints ?? []
        if bullets.count > L.bulletPoints {
            found.append(.init(.badRequestTooManyBulletPoints, "The message has \(bullets.count) bullet points; Apple allows \(L.bulletPoints)."))
        }
        for (index, bullet) in bullets.enumerated() {
            if bullet.text.count > L.bulletPointTextLength {
                found.append(.init(.badRequestBulletPointTextTooLong,
                    "Bullet point \(index + 1) is \(bullet.text.count) characters; Apple allows \(L.bulletPointTextLength)."))
            }
            if bullet.altText.count > L.altTextLength {
                found.append(.init(.altTextTooLong,
                    "The alt text of bullet point \(index + 1) is \(bullet.altText.count) characters; Apple allows \(L.altTextLength)."))
            }
        }
        if headerPosition == .aboveImage && image == nil {
            found.append(.init(.badRequestAboveImageRequiresAnImage, "The header is placed above the image, but the message has no image."))
        }
        return found
    }
}

/// An image a message shows, and the size its place takes.
public struct RetentionImageUse: Sendable, Equatable {
    public var imageIdentifier: String
    /// FULL_SIZE as the message's image, BULLET_POINT beside a bullet point.
    public var size: ImageSize
    /// "the message's image", "the image of bullet point 2".
    public var place: String
}

extension UploadMessageRequestBody {
    /// Every image the message shows, where it shows it; each must be uploaded, and of its place's
    /// size (Apple refuses an unknown one, ImageNotFoundError, and one of the other size,
    /// BadRequestImageSizeError).
    public var imageUses: [RetentionImageUse] {
        (image.map { [RetentionImageUse(imageIdentifier: $0.imageIdentifier.lowercased(), size: .fullSize, place: "the message's image")] } ?? [])
            + (bulletPoints ?? []).enumerated().map { index, point in
                RetentionImageUse(imageIdentifier: point.imageIdentifier.lowercased(), size: .bulletPoint, place: "the image of bullet point \(index + 1)")
            }
    }
}

extension RealtimeUrlRequest {
    /// Why Apple would refuse the URL (BadRequestRealtimeUrlError), or nil.
    public var violation: RetentionRuleViolation? {
        let text = realtimeURL
        if text.count > RetentionLimits.realtimeURLLength {
            return .init(.badRequestRealtimeUrl, "The URL is \(text.count) characters; Apple allows \(RetentionLimits.realtimeURLLength).")
        }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            return .init(.badRequestRealtimeUrl, "\"\(text)\" is not an absolute URL; give one such as https://example.com/retention.")
        }
        guard scheme == "https" else {
            return .init(.badRequestRealtimeUrl, "The URL uses \(scheme)://; Apple calls the realtime URL over https:// only.")
        }
        return nil
    }
}

/// A locale as Apple takes it in a default message's path: a language and a region, such as en-US.
public enum RetentionLocale {
    /// True for `ll-RR` or `lll-RR` (letters, with a script subtag allowed: zh-Hans-CN).
    public static func isValid(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard (2...3).contains(parts.count) else { return false }
        func letters(_ part: String, _ counts: ClosedRange<Int>) -> Bool {
            counts.contains(part.count) && part.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) }
        }
        guard letters(parts[0], 2...3), letters(parts.last!, 2...2) else { return false }
        return parts.count == 2 || letters(parts[1], 4...4)
    }

    /// The locale as written by convention: language lowercase, script capitalised, region
    /// uppercase (`EN-us` is `en-US`, `zh-hans-cn` is `zh-Hans-CN`), so one locale is one default.
    /// Text that is not a locale is returned as it is.
    public static func normalized(_ text: String) -> String {
        guard isValid(text) else { return text }
        var parts = text.split(separator: "-").map(String.init)
        parts[0] = parts[0].lowercased()
        parts[parts.count - 1] = parts[parts.count - 1].uppercased()
        if parts.count == 3 { parts[1] = parts[1].prefix(1).uppercased() + parts[1].dropFirst().lowercased() }
        return parts.joined(separator: "-")
    }
}
