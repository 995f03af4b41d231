import AppStoreServerAPI
import Foundation
import Testing

/// InternetTime writes and reads what ISO8601DateFormatter does with `.withInternetDateTime`
/// (and `.withFractionalSeconds`), without ICU.
struct InternetTimeTests {
    static func formatter(fractional: Bool) -> ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = fractional ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
        return formatter
    }

    static let dates: [Date] = [
        Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_764_292_425.678), Date(timeIntervalSince1970: 951_782_400.999_9),
        Date(timeIntervalSince1970: 4_102_444_799.001), Date(timeIntervalSince1970: 1_700_000_000.5),
    ]

    @Test(arguments: dates) func writesWhatTheFormatterWrites(_ date: Date) {
        #expect(InternetTime.string(from: date) == Self.formatter(fractional: false).string(from: date))
        #expect(InternetTime.string(from: date, fractional: true) == Self.formatter(fractional: true).string(from: date))
    }

    @Test(arguments: dates) func readsBackWhatItWrites(_ date: Date) throws {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        let whole = try #require(InternetTime.date(from: InternetTime.string(from: date)))
        #expect(whole.timeIntervalSince1970 == (milliseconds / 1000).rounded(.down))
        let fractional = try #require(InternetTime.date(from: InternetTime.string(from: date, fractional: true)))
        #expect(abs(fractional.timeIntervalSince1970 - date.timeIntervalSince1970) < 0.001)
    }

    @Test func readsOffsetsAndFractionsAsTheFormatterDoes() throws {
        for text in ["2026-11-28T01:23:45Z", "2026-11-28T02:23:45+01:00", "2026-11-27T20:23:45-05:00", "2024-02-29T23:59:59Z"] {
            let expected = try #require(Self.formatter(fractional: false).date(from: text))
            #expect(InternetTime.date(from: text) == expected, "\(text)")
        }
        for text in ["2026-11-28T01:23:45.678Z", "2026-11-28T01:23:45.5+02:00"] {
            let expected = try #require(Self.formatter(fractional: true).date(from: text))
            let read = try #require(InternetTime.date(from: text))
            #expect(abs(read.timeIntervalSince1970 - expected.timeIntervalSince1970) < 0.000_001, "\(text)")
        }
    }

    @Test func refusesWhatIsNotAnInternetTime() {
        for text in ["", "2026-11-28", "2026-11-28 01:23:45Z", "2026-11-28T01:23:45", "2026-13-01T00:00:00Z", "2025-02-29T00:00:00Z",
                     "2026-11-28T24:00:00Z", "2026-11-28T01:23:45.Z", "2026-11-28T01:23:45Zjunk", "2026-11-28T01:23:45+0100"] {
            #expect(InternetTime.date(from: text) == nil, "\(text)")
        }
    }
}
