import AppStoreServerAPI
import DeskCore
import Foundation
import TerminalUI

/// A verified paste as the Inspector shows it: the report and its tree, built once when the report
/// arrives rather than at every key and frame.
public struct InspectorResult: Sendable {
    public let report: InspectionReport
    public let tree: TreeNode

    public init(_ report: InspectionReport) {
        self.report = report
        self.tree = DetailContent.inspectionTree(report)
    }
}
