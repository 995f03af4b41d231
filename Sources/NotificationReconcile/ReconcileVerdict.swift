/// What the join says about one notification: exactly one per row.
public enum ReconcileVerdict: String, CaseIterable, Sendable, Comparable {
    /// Apple delivered it and it arrived, once.
    case received
    /// Apple logged a failed attempt (TIMED_OUT, ...) or no success, yet the store has it.
    case failedAtAppleButArrived = "failed-at-apple-but-arrived"
    /// Apple's last attempt succeeded, but nothing arrived here.
    case deliveredButMissing = "delivered-but-missing"
    /// Apple could not deliver it and nothing arrived.
    case notDeliveredAndMissing = "not-delivered-and-missing"
    /// It arrived here, but its forward to the app failed: the app never saw it.
    case forwardFailed = "arrived-but-forward-failed"
    /// Apple did not bring it here: `recover` or `replay` re-posted it and the app took it (2xx),
    /// the app being this receiver or one behind it.
    case recovered
    /// In the store within the window, but not in Apple's history.
    case unknownToApple = "unknown-to-apple"
    /// It arrived more than once: Apple retried.
    case duplicate
    /// A TEST notification that arrived: Request a Test Notification sends them and Get Test
    /// Notification Status follows them; Apple's history does not list them, so no gap.
    case testNotification = "test-notification"

    /// A notification on one side only: the exit code says so.
    public var isGap: Bool {
        switch self {
        case .deliveredButMissing, .notDeliveredAndMissing, .forwardFailed, .unknownToApple: return true
        case .received, .failedAtAppleButArrived, .duplicate, .testNotification, .recovered: return false
        }
    }

    public var title: String {
        switch self {
        case .received: return "received"
        case .failedAtAppleButArrived: return "failed at Apple but arrived"
        case .deliveredButMissing: return "delivered per Apple but missing here"
        case .notDeliveredAndMissing: return "not delivered and missing"
        case .forwardFailed: return "arrived, but the forward to the app failed"
        case .recovered: return "recovered by a re-post"
        case .unknownToApple: return "arrived but unknown to Apple"
        case .duplicate: return "duplicate from retries"
        case .testNotification: return "test notification (not in Apple's history)"
        }
    }

    /// At most 11 characters, for a column: the panes say the same verdicts as `reconcile`.
    public var shortTitle: String {
        switch self {
        case .received: return "received"
        case .failedAtAppleButArrived: return "late"
        case .deliveredButMissing: return "missing"
        case .notDeliveredAndMissing: return "undelivered"
        case .forwardFailed: return "fwd failed"
        case .recovered: return "recovered"
        case .unknownToApple: return "unknown"
        case .duplicate: return "duplicate"
        case .testNotification: return "test"
        }
    }

    /// At most 5 characters, for a narrow column.
    public var tinyTitle: String {
        switch self {
        case .received: return "ok"
        case .failedAtAppleButArrived: return "late"
        case .deliveredButMissing: return "MISS"
        case .notDeliveredAndMissing: return "UNDLV"
        case .forwardFailed: return "FWD✗"
        case .recovered: return "recov"
        case .unknownToApple: return "unkn"
        case .duplicate: return "dup"
        case .testNotification: return "test"
        }
    }

    /// What to do about a row with this verdict, in one line.
    public var action: String {
        switch self {
        case .received: return "nothing"
        case .failedAtAppleButArrived:
            return "answer 200 sooner (Apple waits a few seconds); Apple retries it, so expect a duplicate"
        case .deliveredButMissing:
            return "check the URL in App Store Connect and whether this receiver was down; replay it to the app"
        case .notDeliveredAndMissing: return "recover it: iapdesk recover --since T --to URL (or replay UUID)"
        case .forwardFailed: return "fix the app's endpoint, then iapdesk recover --since T --to URL re-posts the stored body"
        case .recovered: return "nothing: re-posted to the app, which took it (2xx)"
        case .unknownToApple: return "check its verdict, environment and bundle ID: another app or environment, iapdesk trigger, or forged"
        case .duplicate: return "nothing if the handler is idempotent by notificationUUID"
        case .testNotification: return "nothing: its delivery is followed with iapdesk test-notification-status TOKEN"
        }
    }

    private var order: Int { Self.allCases.firstIndex(of: self) ?? 0 }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.order < rhs.order }
}
