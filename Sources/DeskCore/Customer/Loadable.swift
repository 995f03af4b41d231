import Foundation

/// Loading state of one part of a pane.
public enum Loadable<Value: Sendable>: Sendable {
    case idle
    case loading
    case loaded(Value)
    case failed(DisplayError)

    public var value: Value? {
        if case .loaded(let value) = self { return value }
        return nil
    }

    public var isLoading: Bool {
        if case .loading = self { return true }
        return false
    }

    public var isLoaded: Bool { value != nil }

    public var isIdle: Bool {
        if case .idle = self { return true }
        return false
    }

    public var error: DisplayError? {
        if case .failed(let error) = self { return error }
        return nil
    }
}

extension Loadable: Equatable where Value: Equatable {}

extension Loadable {
    /// A finished read: loaded or failed.
    public init(_ result: Result<Value, DisplayError>) {
        switch result {
        case .success(let value): self = .loaded(value)
        case .failure(let error): self = .failed(error)
        }
    }
}
