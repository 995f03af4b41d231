import Foundation

/// A subscription's billing period on the calendar, as Apple renews: a monthly subscription bought
/// on the 31st renews on the 28th (or 29th) in February and on the 31st again in March; each
/// renewal date is counted from the start of the chain, not from the previous renewal, so a short
/// month never moves the later ones.
public enum DemoPeriod: Sendable, Equatable {
    case days(Int)
    case weeks(Int)
    case months(Int)
    case years(Int)

    /// Apple's calendar for renewals: Gregorian, in UTC.
    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// The moment `count` periods after `start` (before it when negative), at the same time of day.
    public func advance(_ start: Date, by count: Int) -> Date {
        let (component, length): (Calendar.Component, Int) = switch self {
        case .days(let n): (.day, n)
        case .weeks(let n): (.day, 7 * n)
        case .months(let n): (.month, n)
        case .years(let n): (.year, n)
        }
        return Self.calendar.date(byAdding: component, value: length * count, to: start) ?? start
    }

}
