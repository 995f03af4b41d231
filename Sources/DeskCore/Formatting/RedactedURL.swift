import Foundation

/// A URL as shown and stored: without a user or password, nor query values (they may be secrets).
public enum RedactedURL {
    public static func text(_ url: URL) -> String {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "(unreadable URL)" }
        parts.user = nil
        parts.password = nil
        parts.queryItems = parts.queryItems?.map { URLQueryItem(name: $0.name, value: $0.value == nil ? nil : "redacted") }
        return parts.string ?? "(unreadable URL)"
    }
}
