import Foundation
import Testing
@testable import TOML

@Suite struct TOMLDocumentTests {
    func parse(_ text: String) throws -> TOMLTable { try TOMLDocument.parse(text) }

    func refuses(_ text: String, line: Int? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        do throws(TOMLError) {
            let table = try TOMLDocument.parse(text)
            Issue.record("read \(text.debugDescription) as \(table)", sourceLocation: sourceLocation)
        } catch {
            if let line { #expect(error.line == line, "\(error)", sourceLocation: sourceLocation) }
        }
    }

    @Test func everyKindOfValue() throws {
        let table = try parse(#"""
            # comment
            basic = "tab\tquote\" \u00E9 \U0001F600"
            literal = 'C:\path'
            multi = """
            Roses \
              are red"""
            raw = '''
            a ''quoted'' b'''
            integers = [+99, -17, 1_000, 0xDEAD_beef, 0o755, 0b110]
            floats = [3.14, -0.01, 5e+22, 1E-2, 224_617.445_991]
            special = [inf, -inf, nan]
            dates = [1979-05-27T07:32:00Z, 1979-05-27 07:32:00.5-07:00, 1979-05-27, 07:32:00]
            flags = [true, false]
            point = { x = 1, y.z = 2 }
            dotted.key = "v"
            "quoted key" = 1
            """#)
        #expect(table["basic"]?.string == "tab\tquote\" é 😀")
        #expect(table["literal"]?.string == #"C:\path"#)
        #expect(table["multi"]?.string == "Roses are red")
        #expect(table["raw"]?.string == "a ''quoted'' b")
        #expect(table["integers"] == .array([.integer(99), .integer(-17), .integer(1000), .integer(0xDEADBEEF), .integer(0o755), .integer(6)]))
        #expect(table["floats"] == .array([.float(3.14), .float(-0.01), .float(5e22), .float(0.01), .float(224617.445991)]))
        #expect(table["special"] == .array([.float(.infinity), .float(-.infinity), .float(.nan)]))
        #expect(table["dates"] == .array(["1979-05-27T07:32:00Z", "1979-05-27 07:32:00.5-07:00", "1979-05-27", "07:32:00"].map(TOMLValue.dateTime)))
        #expect(table["flags"] == .array([.boolean(true), .boolean(false)]))
        #expect(table["point"]?.table?["y"]?.table?["z"]?.integer == 2)
        #expect(table["dotted"]?.table?["key"]?.string == "v")
        #expect(table["quoted key"]?.integer == 1)
        #expect(table.keys.first == "basic")
    }

    @Test func tablesAndArraysOfTables() throws {
        let table = try parse("""
            [fruit]
            apple.color = "red"
            [fruit.apple.texture]
            smooth = true
            [[products]]
            name = "Hammer"
            [[products]]
            [products.details]
            weight = 2
            [x.y.z]
            [x]
            w = 1
            """)
        #expect(table["fruit"]?.table?["apple"]?.table?["texture"]?.table?["smooth"]?.bool == true)
        #expect(table["products"]?.array?.count == 2)
        #expect(table["products"]?.array?[1].table?["details"]?.table?["weight"]?.integer == 2)
        #expect(table["x"]?.table?.keys == ["y", "w"])
    }

    @Test func definitionsTOMLForbids() {
        refuses("a = 1\na = 2", line: 2)
        refuses("[a]\n[a]", line: 2)
        refuses("[fruit]\napple.color = 1\n[fruit.apple]")
        refuses("[a.b.c]\n[a]\nb.c.t = 1")
        refuses("a = { b = 1 }\n[a]")
        refuses("a = [1]\n[[a]]")
        refuses("a = {}\na.b = 1")
    }

    @Test func malformedTextIsAnErrorWithItsLine() {
        for text in ["x = ", "x = abc", "x = 01", "x = 1__0", "x = 0x", "x = +0x1", "x = 1.", "x = .5", "x = 1e",
                     "x = 9223372036854775808", "x = 0xFFFFFFFFFFFFFFFF", "x = \"open", "x = 'open", "x = \"\"\"open",
                     "x = \"a\u{1}\"", "x = \"\\q\"", "x = \"\\uD800\"", "x = 1979-13-01", "x = 1979-02-30", "x = 24:00:00",
                     "x = { a = 1, }", "x = { a = 1\n}", "x = [1 2]", "x = [,]", "[a", "[[a]", "[[a] ]", "a b = 1", "= 1",
                     "x = 1 y = 2", "x = true1", "x = 1\r", "# \u{1} control"] {
            refuses(text, line: 1)
        }
        refuses("a = 1\n\nb = \n", line: 3)
    }

    /// toml++ (TOMLKit 0.6.0) aborted the process on these (FuzzConfigFile, FuzzTheme).
    @Test func textThatCrashedTomlPlusPlusIsAnError() {
        refuses("[\n", line: 1)
        refuses("[[[a]]]", line: 1)
        refuses("d=[}", line: 1)
        refuses("n=1979-05-27T:", line: 1)
    }

    @Test func nestingIsBounded() {
        refuses("x = " + String(repeating: "[", count: 100_000))
        refuses("x = " + String(repeating: "{ a = ", count: 100))
        refuses("[" + Array(repeating: "a", count: 100).joined(separator: ".") + "]")
        #expect((try? parse("x = " + String(repeating: "[", count: 60) + String(repeating: "]", count: 60))) != nil)
    }
}
