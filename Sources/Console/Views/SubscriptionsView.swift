import AppStoreServerAPI
import DeskCore
import Foundation
import TerminalUI

/// The customer's subscriptions, one row a chain, and the selected one's renewal info in words.
enum SubscriptionsView {
    static func render(_ state: ConsoleState, _ theme: Theme, _ area: Rect, _ buffer: inout Buffer) {
        guard let customer = state.customer else {
            Paragraph("Look up a customer first (pane 1).", style: theme[.muted]).render(in: area, buffer: &buffer)
            return
        }
        if PaneViews.placeholder(customer.subscriptions, empty: "This customer has no auto-renewable subscriptions.", isEmpty: { $0.isEmpty }, state, theme, area, &buffer) { return }
        let rows = SubscriptionsPane.rows(state)
        let list = state.list(.subscriptions)
        let table = Panes.description(.subscriptions).table(state, area) ?? area
        Table(columns: [.init("GROUP", .length(9)), .init("PRODUCT", .fill(3), cut: .middle), .init("STATUS", .length(21)), .init("RENEWS/ENDS", .length(11)),
                        .init("AUTO", .length(4)), .init("✓", .length(2))],
              rowCount: rows.count, selected: list.selected, offset: list.offset, style: theme[.text], headerStyle: theme[.header],
              selectedStyle: theme[.selection]) { index in
            let row = rows[index]
            let t = row.transaction?.payload
            let r = row.renewal?.payload
            let role: ThemeRole = row.status == .active ? .success : (row.status == .expired || row.status == .revoked ? .error : .warning)
            let ok = row.transaction?.status.isVerified != false && row.renewal?.status.isVerified != false
            let status = (row.status?.label ?? "-") + (SubscriptionOffer.short(row).map { " · \($0)" } ?? "")
            return ([row.groupIdentifier, t?.productId ?? "-", status, DisplayFormat.day(endDate(row)),
                     r?.autoRenewStatus == .on ? "on" : "off", ok ? "✓" : "✗"], theme[role])
        }.render(in: table, buffer: &buffer)
        let panel = Rect(x: area.x, y: table.bottom, width: area.width, height: area.bottom - table.bottom)
        guard rows.indices.contains(list.selected), panel.height > 2 else { return }
        renewalPanel(rows[list.selected], theme, panel, &buffer)
    }

    /// When the subscription renews, or, once it has ended, when it ended.
    static func endDate(_ row: SubscriptionRow) -> Date? {
        let t = row.transaction?.payload
        switch row.status {
        case .revoked: return t?.revocationDate ?? t?.expiresDate
        case .expired: return t?.expiresDate
        default: return row.renewal?.payload?.renewalDate ?? t?.expiresDate
        }
    }

    /// Renewal info of the selected subscription, in words.
    static func renewalPanel(_ row: SubscriptionRow, _ theme: Theme, _ area: Rect, _ buffer: inout Buffer) {
        let r = row.renewal?.payload
        let t = row.transaction?.payload
        var lines: [[Paragraph.Span]] = [[.init("Renewal info", theme[.header]), .init("  \(row.renewal.map { $0.status.isVerified ? "✓ verified" : "✗ not verified" } ?? "")", theme[.muted])]]
        func field(_ name: String, _ value: String?, _ role: ThemeRole = .text) {
            guard let value, value != "-" else { return }
            lines.append([.init("  \(name): ", theme[.muted]), .init(value, theme[role])])
        }
        field("Current period", SubscriptionOffer.current(row).map { $0.prefix(1).uppercased() + $0.dropFirst() }, .info)
        field("Auto-renew", r?.autoRenewStatus.map { $0 == .on ? "on, to \(r?.autoRenewProductId ?? "-")" : "off" })
        if row.status == .expired || row.status == .revoked {
            // Nothing renews: the date that matters is when it ended.
            field(row.status == .revoked ? "Revoked" : "Expired", endDate(row).map { "\(DisplayFormat.date($0)) (\(DisplayFormat.relative($0)))" }, .warning)
        } else {
            // With auto-renew off the date is when it ends: an agent reads it out as such.
            let renews = r?.autoRenewStatus != .off
            field(renews ? "Renewal date" : "Ends (no renewal)", r?.renewalDate.map { "\(DisplayFormat.date($0)) (\(DisplayFormat.relative($0)))" })
            if renews { field("Renewal price", r?.renewalPrice.map { DisplayFormat.money($0, r?.currency) }) }
        }
        field("Expiration intent", r?.expirationIntent?.label, .warning)
        field("Billing retry", r?.isInBillingRetryPeriod == true ? "Apple is retrying the charge" : nil, .warning)
        field("Grace period ends", r?.gracePeriodExpiresDate.map { DisplayFormat.date($0) }, .warning)
        field("Price increase", r?.priceIncreaseStatus?.label, .warning)
        field("Offer at renewal", r?.offerType.map { "\($0.label) \(r?.offerIdentifier ?? "")" })
        field("Subscribed since", r?.recentSubscriptionStartDate.map { DisplayFormat.day($0) })
        field("Win-back offers", r?.eligibleWinBackOfferIds?.joined(separator: ", "))
        field("Ownership", t?.inAppOwnershipType == .familyShared ? "Family Sharing member (extend the purchaser's subscription)" : nil)
        Paragraph(lines: lines, wrap: false).render(in: area, buffer: &buffer)
    }
}
