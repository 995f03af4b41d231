import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// RFC 3339 times in UTC (`2026-11-28T01:23:45Z`, `2026-11-28T01:23:45.678Z`), written and read
/// without Foundation's ISO8601DateFormatter: on Linux every formatter opens ICU's calendar and
/// locale data, megabytes of a process's memory touched for a fixed format, and a formatter made
/// per line of the audit ledger was a visible share of the console's start. Output is what
/// ISO8601DateFormatter writes with `.withInternetDateTime` (and `.withFractionalSeconds`:
/// milliseconds, rounded to the nearest); input is what it reads with those options, either form.
public enum InternetTime {
    public static func string(from date: Date, fractional: Bool = false) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        var seconds = time_t(milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000)
        var fields = tm()
        guard gmtime_r(&seconds, &fields) != nil else { return "" }
        var text = pad(Int(fields.tm_year) + 1900, 4) + "-" + pad(Int(fields.tm_mon) + 1, 2) + "-" + pad(Int(fields.tm_mday), 2)
        text += "T" + pad(Int(fields.tm_hour), 2) + ":" + pad(Int(fields.tm_min), 2) + ":" + pad(Int(fields.tm_sec), 2)
        if fractional { text += "." + pad(Int(milliseconds - Int64(seconds) * 1000), 3) }
        return text + "Z"
    }

    /// `YYYY-MM-DDTHH:MM:SS`, an optional fraction, then `Z` or `±HH:MM`; nil for anything else.
    public static func date(from text: String) -> Date? {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ digits: Int) -> Int? {
            guard index + digits <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + digits] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            index += digits
            return value
        }
        func expect(_ character: Character) -> Bool {
            guard index < bytes.count, bytes[index] == character.asciiValue else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2), expect("T"),
              let hour = number(2), expect(":"), let minute = number(2), expect(":"), let second = number(2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction = 0.0
        if expect(".") {
            var scale = 0.1
            let start = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                fraction += Double(bytes[index] - UInt8(ascii: "0")) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        var offset = 0
        if expect("Z") {
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let hours = number(2), expect(":"), let minutes = number(2), hours < 24, minutes < 60 else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        var fields = tm()
        fields.tm_year = Int32(year - 1900)
        fields.tm_mon = Int32(month - 1)
        fields.tm_mday = Int32(day)
        fields.tm_hour = Int32(hour)
        fields.tm_min = Int32(minute)
        fields.tm_sec = Int32(second)
        // timegm normalises a day past the month's end; such a date is not one.
        let normalised = fields
        let seconds = timegm(&fields)
        guard fields.tm_mday == normalised.tm_mday, fields.tm_mon == normalised.tm_mon else { return nil }
        return Date(timeIntervalSince1970: Double(Int(seconds) - offset) + fraction)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
