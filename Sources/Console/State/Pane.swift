import DeskCore
import TerminalUI

/// A pane's identity. Each pane's file declares its own (`extension Pane { static let refunds = … }`)
/// and registers its description in `Panes.all`; nothing else names every pane.
public struct Pane: Hashable, Sendable, CustomStringConvertible {
    public let id: String

    public init(_ id: String) { self.id = id }

    public var description: String { id }
}

/// State a pane keeps for itself (its rows, filters, input), stored in `ConsoleState.models`
/// so that adding a pane adds no field to the console's state.
public protocol PaneModel: Sendable {
    init()
}

/// The panes' own states, one value per model type.
public struct PaneModels: Sendable {
    private var storage: [ObjectIdentifier: any Sendable] = [:]

    public init() {}

    public subscript<Model: PaneModel>(_ type: Model.Type) -> Model {
        get { storage[ObjectIdentifier(type)] as? Model ?? Model() }
        set { storage[ObjectIdentifier(type)] = newValue }
    }
}
