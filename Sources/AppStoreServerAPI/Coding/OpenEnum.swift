/// An Apple enumeration whose raw values may grow: a value this build does not know is kept
/// as `unknown(raw)` instead of failing the decode, and encodes back unchanged.
///
/// Not `RawRepresentable` on purpose: its default `==` compares raw values, which would recurse here.
public protocol OpenEnum: Hashable, Sendable, Codable, CustomStringConvertible {
    associatedtype RawValue: Hashable & Sendable & Codable & CustomStringConvertible
    /// Every known value with its wire value and a short label for people, in documentation order.
    static var catalog: [(value: Self, raw: RawValue, label: String)] { get }
    static func unknown(_ raw: RawValue) -> Self
}

extension OpenEnum {
    /// Never fails: an unrecognised value becomes `unknown(raw)`.
    public init(_ rawValue: RawValue) {
        if let entry = Self.catalog.first(where: { $0.raw == rawValue }) {
            self = entry.value
        } else {
            self = .unknown(rawValue)
        }
    }

    public init?(rawValue: RawValue) {
        self.init(rawValue)
    }

    public var rawValue: RawValue {
        if let entry = Self.catalog.first(where: { $0.value == self }) {
            return entry.raw
        }
        // Only `unknown(raw)` is missing from the catalog; its single payload is the raw value.
        return Mirror(reflecting: self).children.first?.value as! RawValue
    }

    public var isKnown: Bool { Self.catalog.contains { $0.value == self } }

    /// A label for people: the catalog label, or the raw value marked as unrecognised.
    public var label: String {
        Self.catalog.first(where: { $0.value == self })?.label ?? "unrecognised (\(rawValue))"
    }

    public var description: String { rawValue.description }

    public static var knownValues: [Self] { catalog.map(\.value) }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self.init(try container.decode(RawValue.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
