import Foundation

/// JSON as Apple's App Store Server API writes it: dates are UNIX epoch milliseconds
/// (a fraction is accepted and truncated toward zero), optional keys are omitted.
public enum AppStoreJSON {
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let milliseconds = try container.decode(Double.self)
            guard let date = Date(checkedEpochMilliseconds: milliseconds.rounded(.towardZero)) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "date is not a time within 10,000 years of 1970")
            }
            return date
        }
        return decoder
    }

    public static func encoder(pretty: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.epochMilliseconds)
        }
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// Decodes `type`, turning Foundation's errors into one that names the JSON path.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws(JSONDecodeFailure) -> T {
        do {
            // A decoder per call: one shared by concurrent tasks froze whole test runs here.
            return try decoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw JSONDecodeFailure(error, typeName: String(describing: type))
        } catch {
            throw JSONDecodeFailure(path: "", reason: "\(error)", typeName: String(describing: type))
        }
    }
}

extension Date {
    public init(epochMilliseconds: Double) {
        self.init(timeIntervalSince1970: epochMilliseconds / 1000)
    }

    public init(epochMilliseconds: Int64) {
        self.init(epochMilliseconds: Double(epochMilliseconds))
    }

    /// Milliseconds read from outside, or nil when they are not a time within 10,000 years of 1970
    /// (StoreKit's year-1 sentinel included): in that span every whole millisecond comes back unchanged
    /// from `epochMilliseconds`, which a far larger value would overflow.
    public init?(checkedEpochMilliseconds milliseconds: Double) {
        guard milliseconds.isFinite, abs(milliseconds) <= Self.tenThousandYears else { return nil }
        self.init(epochMilliseconds: milliseconds)
    }

    /// 10,000 Gregorian years of 365.2425 days, in milliseconds.
    static let tenThousandYears: Double = 315_569_520_000_000

    /// Whole milliseconds since 1970, truncated toward zero; values that are whole
    /// milliseconds up to floating-point noise round to that millisecond. The noise grows with the
    /// value (a date thousands of years out holds milliseconds only to a few hundredths).
    public var epochMilliseconds: Int64 {
        let milliseconds = timeIntervalSince1970 * 1000
        let nearest = milliseconds.rounded()
        let noise = max(0.001, nearest.ulp * 16)
        return Int64(abs(milliseconds - nearest) < noise ? nearest : milliseconds.rounded(.towardZero))
    }
}

/// A JSON document that did not have the expected shape, with the path of the offending value.
public struct JSONDecodeFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// Dotted path such as `data[0].lastTransactions[1].status`; empty for the document itself.
    public let path: String
    public let reason: String
    public let typeName: String

    public init(path: String, reason: String, typeName: String) {
        self.path = path
        self.reason = reason
        self.typeName = typeName
    }

    init(_ error: DecodingError, typeName: String) {
        func render(_ codingPath: [any CodingKey]) -> String {
            var text = ""
            for key in codingPath {
                if let index = key.intValue {
                    text += "[\(index)]"
                } else {
                    text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
                }
            }
            return text
        }
        switch error {
        case .typeMismatch(let type, let context):
            self.init(path: render(context.codingPath), reason: "expected \(Self.jsonKind(type))", typeName: typeName)
        case .valueNotFound(let type, let context):
            self.init(path: render(context.codingPath), reason: "expected \(Self.jsonKind(type)), found null", typeName: typeName)
        case .keyNotFound(let key, let context):
            self.init(path: render(context.codingPath + [key]), reason: "required key is missing", typeName: typeName)
        case .dataCorrupted(let context):
            let underlying = (context.underlyingError as NSError?)?.localizedDescription
            let reason = context.codingPath.isEmpty ? "not valid JSON" + (underlying.map { " (\($0))" } ?? "") : context.debugDescription
            self.init(path: render(context.codingPath), reason: reason, typeName: typeName)
        @unknown default:
            self.init(path: "", reason: "\(error)", typeName: typeName)
        }
    }

    private static func jsonKind(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Bool.Type: return "a boolean"
        case is Int.Type, is Int32.Type, is Int64.Type, is Double.Type, is UInt64.Type: return "a number"
        case is [Any].Type: return "an array"
        case is [String: Any].Type: return "an object"
        default: return "a value of type \(type)"
        }
    }

    public var description: String {
        path.isEmpty ? "\(typeName): \(reason)" : "\(typeName) at \(path): \(reason)"
    }
}
