import AppStoreServerAPI

/// `--reason` by name or number.
enum ReasonArgument {
    static func parse(_ text: String) throws -> ExtendReasonCode {
        let key = text.lowercased().replacingOccurrences(of: "_", with: "-")
        switch key {
        case "0", "undeclared": return .undeclared
        case "1", "customer-satisfaction", "satisfaction", "goodwill": return .customerSatisfaction
        case "2", "other": return .other
        case "3", "service-issue", "outage", "service-issue-or-outage": return .serviceIssueOrOutage
        default:
            throw CLIError("--reason \(text) is not a reason.",
                           hint: "Use customer-satisfaction (1), service-issue (3), other (2) or undeclared (0).", status: .usage)
        }
    }
}
