import FuzzSupport
import TOML

/// Any text either fails with a line number within the text, or reads as tables that, written back
/// as TOML (every table inline, every key quoted), read back the same.
@main enum FuzzTOMLDocument {
    static func main() {
        Fuzz.run { data in
            let text = String(decoding: data, as: UTF8.self)
            let table: TOMLTable
            do throws(TOMLError) {
                table = try TOMLDocument.parse(text)
            } catch {
                let lines = text.utf8.count(where: { $0 == UInt8(ascii: "\n") }) + 1
                invariant((1...lines).contains(error.line), "error on line \(error.line) of \(lines): \(error)")
                return
            }
            invariant(Set(table.keys).count == table.keys.count, "a key twice")
            // Written inline, every level of the tree is a level of nesting.
            guard depth(.table(table)) < TOMLDocument.maximumDepth else { return }
            let written = table.keys.map { "\(TOMLText.key($0)) = \(write(table[$0]!))" }.joined(separator: "\n")
            do throws(TOMLError) {
                let again = try TOMLDocument.parse(written)
                invariant(again == table, "written back as\n\(written)\nit reads differently")
            } catch {
                invariant(false, "written back as\n\(written)\nit does not read: \(error)")
            }
        }
    }

    static func write(_ value: TOMLValue) -> String {
        switch value {
        case .string(let text): return TOMLText.string(text)
        case .integer(let number): return String(number)
        case .float(let number):
            if number.isNaN { return "nan" }
            if number.isInfinite { return number < 0 ? "-inf" : "inf" }
            return "\(number)"
        case .boolean(let flag): return flag ? "true" : "false"
        case .dateTime(let text): return text
        case .array(let items): return "[" + items.map(write).joined(separator: ", ") + "]"
        case .table(let table):
            return "{" + table.keys.map { "\(TOMLText.key($0)) = \(write(table[$0]!))" }.joined(separator: ", ") + "}"
        }
    }

    static func depth(_ value: TOMLValue) -> Int {
        switch value {
        case .array(let items): return 1 + (items.map(depth).max() ?? 0)
        case .table(let table): return 1 + (table.keys.map { depth(table[$0]!) }.max() ?? 0)
        default: return 0
        }
    }
}
