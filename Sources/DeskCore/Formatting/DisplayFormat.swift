import AppStoreServerAPI
import Foundation

/// How values read for people: the same in the console's panes and the command line's tables.
public enum DisplayFormat {
    /// `2026-11-21 14:05 UTC`, or `-` when absent.
    public static func date(_ date: Date?, seconds: Bool = false) -> String {
        guard let date, let parts = utcParts(date) else { return "-" }
        let time = seconds ? String(format: "%02d:%02d:%02d", parts.hour, parts.minute, parts.second) : String(format: "%02d:%02d", parts.hour, parts.minute)
        return String(format: "%04d-%02d-%02d ", parts.year, parts.month, parts.day) + time + " UTC"
    }

    public static func day(_ date: Date?) -> String {
        guard let date, let parts = utcParts(date) else { return "-" }
        return String(format: "%04d-%02d-%02d", parts.year, parts.month, parts.day)
    }

    /// `Monday 7 December 2026` (UTC), for confirmations read back to a customer.
    public static func longDay(_ date: Date?) -> String {
        guard let date, let parts = utcParts(date) else { return "an unknown date" }
        let weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
        let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var fields = tm()
        _ = gmtime_r(&seconds, &fields)
        return "\(weekdays[Int(fields.tm_wday) % 7]) \(parts.day) \(months[parts.month - 1]) \(parts.year)"
    }

    /// Calendar fields in UTC through gmtime_r: cheap enough to call for every visible row of every frame.
    public static func utcParts(_ date: Date) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int)? {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var fields = tm()
        guard gmtime_r(&seconds, &fields) != nil else { return nil }
        return (Int(fields.tm_year) + 1900, Int(fields.tm_mon) + 1, Int(fields.tm_mday), Int(fields.tm_hour), Int(fields.tm_min), Int(fields.tm_sec))
    }

    /// ISO 8601 with milliseconds, for machine output.
    public static func iso(_ date: Date) -> String {
        InternetTime.string(from: date, fractional: true)
    }

    /// Milliunits of a currency as `9.99 USD`.
    public static func money(_ milliunits: Int64?, _ currency: String?) -> String {
        guard let milliunits else { return "-" }
        let negative = milliunits < 0
        let value = abs(milliunits)
        let whole = value / 1000
        let fraction = value % 1000
        var text = "\(whole)"
        if fraction != 0 || currency != "JPY" {
            var digits = String(format: "%03d", fraction)
            if digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        }
        return (negative ? "-" : "") + text + (currency.map { " \($0)" } ?? "")
    }

    /// Milliunits of a percent as `50%` or `67.5%`.
    public static func percentage(_ milliunits: Int32?) -> String {
        guard let milliunits else { return "-" }
        let whole = milliunits / 1000
        let fraction = milliunits % 1000
        if fraction == 0 { return "\(whole)%" }
        var digits = String(format: "%03d", fraction)
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(whole).\(digits)%"
    }

    /// "1 day", "3 days": a count with its noun, singular when it is one.
    public static func count(_ number: Int, _ noun: String, plural: String? = nil) -> String {
        "\(number) \(number == 1 ? noun : plural ?? noun + "s")"
    }

    /// A length of time for a progress line: `45 s`, `3 min 5 s`, `2 h 10 min`.
    public static func duration(seconds: TimeInterval) -> String {
        let total = Int(max(0, seconds).rounded())
        if total < 60 { return "\(total) s" }
        if total < 3600 { return total % 60 == 0 ? "\(total / 60) min" : "\(total / 60) min \(total % 60) s" }
        return "\(total / 3600) h \(total % 3600 / 60) min"
    }

    /// A relative span such as `in 12 days` or `3 h ago`.
    public static func relative(_ date: Date?, now: Date = Date()) -> String {
        guard let date else { return "-" }
        let seconds = date.timeIntervalSince(now)
        let magnitude = abs(seconds)
        let text: String
        switch magnitude {
        case ..<60: text = "\(Int(magnitude)) s"
        case ..<3600: text = "\(Int(magnitude / 60)) min"
        case ..<172_800: text = "\(Int(magnitude / 3600)) h"
        default: text = count(Int((magnitude / 86_400).rounded()), "day")
        }
        return seconds >= 0 ? "in \(text)" : "\(text) ago"
    }
}
