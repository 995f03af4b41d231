import AppStoreServerAPI
import Foundation

/// Customers of the demo's Advanced Commerce products. Built after every other customer, so the
/// IDs the others were given (and that tests and docs name) stay what they were.
extension DatasetBuilder {
    static let studioItems: [(sku: String, name: String, description: String, price: Int64)] = [
        ("STUDIO_BASE_1M", "Studio base plan", "Editing tools and 100 GB of storage.", 9990),
        ("STUDIO_STORAGE_1TB", "1 TB storage add-on", "One more terabyte for your projects.", 2990),
    ]
    static let courseItems: [(sku: String, name: String, description: String, price: Int64)] = [
        ("COURSE_SWIFT_101", "Swift 101", "Twelve lessons from the first line of code.", 2990),
        ("COURSE_SWIFTUI_LAYOUT", "SwiftUI layouts", "Stacks, grids and custom layouts.", 1990),
    ]
    static let studioTaxCode = "C003-00-1"

    mutating func addAdvancedCommerceCustomers(prefix: String = "") {
        // A monthly Studio subscription with an add-on, bought three months ago and renewed since.
        let studio = customer(prefix + "Advanced Commerce subscription", since: daysAgo(120))
        let chain = subscribeUntilNow(studio, DemoCatalog.studioMonthly, start: daysAgo(75))
        let descriptors = AdvancedCommerceDescriptors(description: "Studio plan with the add-ons you chose.", displayName: "Studio")
        let reference = uuid()
        for id in chain.transactionIds {
            data.transactions[id]!.payload.advancedCommerceInfo = AdvancedCommerceTransactionInfo(
                descriptors: descriptors, estimatedTax: 0, items: Self.studioItems.map {
                    AdvancedCommerceTransactionItem(sku: $0.sku, description: $0.description, displayName: $0.name, price: $0.price)
                }, period: "P1M", requestReferenceId: reference, taxCode: Self.studioTaxCode, taxExclusivePrice: 12980, taxRate: "0")
        }
        track(chain, customer: studio, status: .active) { renewal in
            renewal.advancedCommerceInfo = AdvancedCommerceRenewalInfo(
                consistencyToken: "1.\(chain.originalTransactionId).\(reference)", descriptors: descriptors,
                items: Self.studioItems.map { AdvancedCommerceRenewalItem(sku: $0.sku, description: $0.description, displayName: $0.name, price: $0.price) },
                period: "P1M", requestReferenceId: reference, taxCode: Self.studioTaxCode)
        }
        notify(.subscribed, .initialBuy, at: daysAgo(75), customer: studio, transaction: chain.originalTransactionId)
        notifyRenewal(chain, customer: studio, product: DemoCatalog.studioMonthly)

        // Two courses bought in one one-time charge.
        let learner = customer(prefix + "Advanced Commerce one-time charge", storefront: "GBR", since: daysAgo(30))
        let charge = purchase(learner, DemoCatalog.courses, at: daysAgo(10))
        data.transactions[charge]!.payload.advancedCommerceInfo = AdvancedCommerceTransactionInfo(
            descriptors: AdvancedCommerceDescriptors(description: "Two courses, yours to keep.", displayName: "Course bundle"),
            estimatedTax: 830, items: Self.courseItems.map {
                AdvancedCommerceTransactionItem(sku: $0.sku, description: $0.description, displayName: $0.name, price: $0.price)
            }, requestReferenceId: uuid(), taxCode: "C003-00-2", taxExclusivePrice: 4150, taxRate: "0.2")
        notify(.oneTimeCharge, at: daysAgo(10), customer: learner, transaction: charge)
        data.notifications.sort { $0.signedDate < $1.signedDate }
    }
}
