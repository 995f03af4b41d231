import Foundation
extension Optional {
    /// `map` for an async transform (verifying an optional JWS, say).
    public func asyncMap<T>(_ transform: (Wrapped) async -> T) async -> T? {
        guard let value = self else { return nil }
        return await transform(value)
    }
}
