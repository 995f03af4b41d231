import AppStoreServerAPI
import Foundation

/// The demo app's products.
public struct DemoProduct: Sendable, Equatable {
    public let productId: String
    public let type: ProductType
    public let subscriptionGroupIdentifier: String?
    /// Milliunits of USD.
    public let price: Int64
    /// The billing period, for subscriptions (renewed on the calendar, see `DemoPeriod`).
    public let period: DemoPeriod?
    /// Service level inside a group: higher is better (an upgrade moves up).
    public let level: Int
    public let name: String
    /// A generic product of the Advanced Commerce API: the app sends the SKUs, names and prices at
    /// purchase, and its transactions carry `advancedCommerceInfo`.
    public var isAdvancedCommerce = false
}

public enum DemoCatalog {
    public static let bundleId = "com.iapdesk.demo"
    public static let appAppleId: Int64 = 1_600_000_042
    public static let bundleVersion = "2.4.1"
    public static let proGroup = "21482736"
    public static let newsGroup = "21482737"

    public static let proMonthly = DemoProduct(productId: "com.iapdesk.demo.pro.monthly", type: .autoRenewableSubscription, subscriptionGroupIdentifier: proGroup, price: 9990, period: .months(1), level: 2, name: "Pro Monthly")
    public static let proPlusMonthly = DemoProduct(productId: "com.iapdesk.demo.proplus.monthly", type: .autoRenewableSubscription, subscriptionGroupIdentifier: proGroup, price: 14990, period: .months(1), level: 1, name: "Pro Plus Monthly")
    public static let proYearly = DemoProduct(productId: "com.iapdesk.demo.pro.yearly", type: .autoRenewableSubscription, subscriptionGroupIdentifier: proGroup, price: 79990, period: .years(1), level: 2, name: "Pro Yearly")
    public static let newsWeekly = DemoProduct(productId: "com.iapdesk.demo.news.weekly", type: .autoRenewableSubscription, subscriptionGroupIdentifier: newsGroup, price: 1990, period: .weeks(1), level: 1, name: "News Weekly")
    public static let coins100 = DemoProduct(productId: "com.iapdesk.demo.coins.100", type: .consumable, subscriptionGroupIdentifier: nil, price: 990, period: nil, level: 0, name: "100 Coins")
    public static let coins1000 = DemoProduct(productId: "com.iapdesk.demo.coins.1000", type: .consumable, subscriptionGroupIdentifier: nil, price: 7990, period: nil, level: 0, name: "1000 Coins")
    public static let lifetime = DemoProduct(productId: "com.iapdesk.demo.lifetime", type: .nonConsumable, subscriptionGroupIdentifier: nil, price: 29990, period: nil, level: 0, name: "Lifetime Unlock")
    public static let themePack = DemoProduct(productId: "com.iapdesk.demo.themes", type: .nonConsumable, subscriptionGroupIdentifier: nil, price: 2990, period: nil, level: 0, name: "Theme Pack")
    public static let seasonPass = DemoProduct(productId: "com.iapdesk.demo.seasonpass.2026", type: .nonRenewingSubscription, subscriptionGroupIdentifier: nil, price: 19990, period: .days(90), level: 0, name: "Season Pass 2026")

    public static let studioGroup = "21482738"
    /// Advanced Commerce generic products: a monthly subscription whose items the app chooses, and a one-time charge.
    public static let studioMonthly = DemoProduct(productId: "com.iapdesk.demo.studio.ac", type: .autoRenewableSubscription, subscriptionGroupIdentifier: studioGroup, price: 12980, period: .months(1), level: 1, name: "Studio (Advanced Commerce)", isAdvancedCommerce: true)
    public static let courses = DemoProduct(productId: "com.iapdesk.demo.courses.ac", type: .nonConsumable, subscriptionGroupIdentifier: nil, price: 4980, period: nil, level: 0, name: "Courses (Advanced Commerce)", isAdvancedCommerce: true)

    public static let all: [DemoProduct] = [proMonthly, proPlusMonthly, proYearly, newsWeekly, coins100, coins1000, lifetime, themePack, seasonPass, studioMonthly, courses]

    public static func product(_ id: String) -> DemoProduct? { all.first { $0.productId == id } }
}
