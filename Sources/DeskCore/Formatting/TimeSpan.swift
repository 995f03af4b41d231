import Foundation

/// A span back from now as a person types it: `7d`, `24h`, `30m` (days, hours, minutes; any number
/// not below zero, such as 1.5d). The command line's dates and the console's filters read it alike.
public enum TimeSpan {
    /// The span in seconds, or nil when `text` is not one.
    public static func seconds(_ text: String) -> TimeInterval? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let unit = trimmed.last, let amount = Double(trimmed.dropLast()), amount.isFinite, amount >= 0 else { return nil }
        switch unit {
        case "d": return amount * 86_400
        case "h": return amount * 3_600
        case "m": return amount * 60
        default: return nil
        }
    }
}
