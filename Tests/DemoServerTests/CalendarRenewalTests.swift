import AppStoreServerAPI
@testable import DemoServer
import Foundation
import Testing

/// Subscriptions renew on the calendar as Apple renews them, and the notifications about them
/// follow their dates.
@Suite struct CalendarRenewalTests {
    static let calendar = DemoPeriod.calendar

    static func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    @Test func monthlyKeepsTheDayOfTheMonthWhereTheMonthHasIt() {
        let start = Self.date("2027-01-31T09:15:00Z")
        let renewals = (1...4).map { DemoPeriod.months(1).advance(start, by: $0) }
        #expect(renewals == ["2027-02-28T09:15:00Z", "2027-03-31T09:15:00Z", "2027-04-30T09:15:00Z", "2027-05-31T09:15:00Z"].map(Self.date))
        #expect(DemoPeriod.months(1).advance(Self.date("2028-01-30T00:00:00Z"), by: 1) == Self.date("2028-02-29T00:00:00Z"))
        #expect(DemoPeriod.months(1).advance(Self.date("2027-05-11T08:00:00Z"), by: 3) == Self.date("2027-08-11T08:00:00Z"))
    }

    @Test func weeklyYearlyAndDaysLikewise() {
        #expect(DemoPeriod.weeks(1).advance(Self.date("2027-03-27T23:30:00Z"), by: 2) == Self.date("2027-04-10T23:30:00Z"))
        #expect(DemoPeriod.years(1).advance(Self.date("2028-02-29T12:00:00Z"), by: 1) == Self.date("2029-02-28T12:00:00Z"))
        #expect(DemoPeriod.years(1).advance(Self.date("2028-02-29T12:00:00Z"), by: 4) == Self.date("2032-02-29T12:00:00Z"))
        #expect(DemoPeriod.days(90).advance(Self.date("2027-01-01T00:00:00Z"), by: 1) == Self.date("2027-04-01T00:00:00Z"))
        #expect(DemoPeriod.months(1).advance(Self.date("2027-03-31T00:00:00Z"), by: -1) == Self.date("2027-02-28T00:00:00Z"))
    }

    /// Anchors at month ends and in a leap February, where 30-day periods and calendar months part.
    static let anchors = ["2027-03-31T10:00:00Z", "2027-04-30T23:00:00Z", "2028-02-29T06:00:00Z", "2027-01-15T12:00:00Z"]

    @Test(arguments: anchors)
    func everyChainOfTheDatasetRenewsOnTheCalendar(anchor text: String) async throws {
        var configuration = DemoServer.Configuration()
        configuration.anchor = Self.date(text)
        let server = try await DemoServer.start(configuration)
        for environment in [AppStoreEnvironment.production, .sandbox] {
            let transactions = try server.store.read(environment) { data throws(DemoAPIError) in data.transactions.values.map(\.payload) }
            let chains = Dictionary(grouping: transactions.filter { $0.type == .autoRenewableSubscription }) { $0.originalTransactionId! }
            #expect(chains.count >= 4)
            for (id, chain) in chains {
                let sorted = chain.sorted { $0.purchaseDate! < $1.purchaseDate! }
                // The renewals after the first paid period, on one product (an upgrade starts its own dates).
                let renewals = sorted.filter { $0.transactionReason == .renewal && $0.productId == sorted[0].productId }
                guard let product = DemoCatalog.product(sorted[0].productId!), let period = product.period, renewals.count >= 1 else { continue }
                for renewal in renewals {
                    #expect(sorted.contains { $0.expiresDate == renewal.purchaseDate }, "\(id): a renewal starts when the previous period ends")
                }
                let ends = renewals.map { $0.expiresDate! }
                switch period {
                case .months:
                    let days = ends.map { Self.calendar.component(.day, from: $0) }
                    let day = days.max()!
                    for end in ends {
                        let inMonth = Self.calendar.range(of: .day, in: .month, for: end)!.count
                        #expect(Self.calendar.component(.day, from: end) == min(day, inMonth), "\(id) renews on day \(day), not on \(end)")
                    }
                case .weeks(let n):
                    for (earlier, later) in zip(ends, ends.dropFirst()) {
                        #expect(later.timeIntervalSince(earlier) == Double(7 * n * 86_400), "\(id): weekly")
                    }
                case .years:
                    for (earlier, later) in zip(ends, ends.dropFirst()) {
                        #expect(Self.calendar.dateComponents([.year], from: earlier, to: later).year == 1, "\(id): yearly")
                    }
                case .days:
                    break
                }
                let times = Set(ends.map { Self.calendar.dateComponents([.hour, .minute, .second], from: $0) })
                #expect(times.count == 1, "\(id): every renewal at the same time of day")
            }
            try checkNotifications(server, environment, renewals: Set(transactions.filter { $0.transactionReason == .renewal }.map { $0.purchaseDate! }))
        }
        await server.stop()
    }

    /// Calendar periods count as many renewals on every date, so the IDs the docs list never move.
    @Test func theSeededIDsAreTheSameOnEveryDate() async throws {
        var seen: [[String]] = []
        for text in Self.anchors {
            var configuration = DemoServer.Configuration()
            configuration.anchor = Self.date(text)
            let server = try await DemoServer.start(configuration)
            let customers = server.seedIDs(.production).customers + server.seedIDs(.sandbox).customers
            seen.append(customers.flatMap { [$0.originalTransactionId, $0.orderId, $0.appTransactionId ?? "-"] })
            await server.stop()
        }
        #expect(seen.allSatisfy { $0 == seen[0] })
        #expect(seen[0].contains("2000000400028431"), "the charged-after-cancelling customer of docs/demo.md")
    }

    /// DID_RENEW is signed 30 s after a renewal; every notification's attempts start after it is
    /// signed, follow Apple's retry schedule and none lies after the anchor.
    func checkNotifications(_ server: DemoServer, _ environment: AppStoreEnvironment, renewals: Set<Date>) throws {
        let anchor = server.keptState?.anchor ?? server.store.clock()
        let notes = try server.store.read(environment) { data throws(DemoAPIError) in data.notifications }
        let renewed = notes.filter { $0.type == .didRenew }
        #expect(!renewed.isEmpty || environment == .sandbox)
        for note in renewed {
            #expect(renewals.contains(note.signedDate.addingTimeInterval(-30)), "DID_RENEW at \(note.signedDate) follows no renewal")
        }
        for note in notes where note.signedDate <= anchor {
            let dates = note.attempts.compactMap(\.attemptDate)
            #expect(dates.first.map { $0 > note.signedDate } ?? true, "\(note.type) attempted before it was signed")
            for (index, (earlier, later)) in zip(dates, dates.dropFirst()).enumerated() {
                #expect(later.timeIntervalSince(earlier) == DatasetBuilder.retryIntervals[index], "\(note.type): retry \(index + 1)")
            }
        }
    }
}
