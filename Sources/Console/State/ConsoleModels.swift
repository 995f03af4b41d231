import AppStoreServerAPI
import DeskCore
import Foundation
import TerminalUI

/// A paste as the Inspector shows it: the verification report of signed data, or a legacy app
/// receipt as read (not verified), and its tree, built once rather than at every key and frame.
public struct InspectorResult: Sendable {
    public let report: InspectionReport?
    public let receipt: AppReceipt?
    public let tree: TreeNode

    public init(_ report: InspectionReport) {
        self.report = report
        self.receipt = nil
        self.tree = DetailContent.inspectionTree(report)
    }

    public init(receipt: AppReceipt) {
        self.report = nil
        self.receipt = receipt
        self.tree = DetailContent.receiptTree(receipt)
    }
}
