@testable import TerminalUI
import Testing

/// Inputs the fuzz targets found (Fuzz/, docs/fuzzing.md), each with what it broke.
@Suite struct FuzzRegressionTests {
    /// FuzzKeyDecoder: a read ending right after the ESC of the end marker left the paste open and
    /// took "[201~" and every later key for pasted text.
    @Test func aPasteEndCutAfterItsEscapeStillEndsThePaste() {
        var decoder = KeyDecoder()
        var keys: [Key] = []
        for read in ["\u{1B}[", "200", "~abc\u{1B}", "[201~x"] {
            keys += decoder.feed(read.unicodeScalars.map { .scalar($0) })
        }
        #expect(!decoder.isInsidePaste)
        #expect(keys + decoder.flush() == [.paste("abc"), .character("x")])
    }

    /// FuzzTheme: "#+fffff" passed as a colour, since UInt32(_:radix:) also reads a sign.
    @Test func aColourIsSixHexDigits() throws {
        for spelled in ["#+fffff", "#-00000", "#+0000f"] {
            #expect(throws: ThemeError.self) { try Theme.parse("[roles]\ntext = { fg = \"\(spelled)\" }", source: "t.toml") }
        }
        #expect(try Theme.parse("[roles]\ntext = { fg = \"#0A0b0C\" }", source: "t.toml")[.text].fg == .rgb(10, 11, 12))
    }

    /// FuzzTheme: a theme with "[" on a line, or a time cut short, aborted the process inside toml++.
    @Test func malformedThemeTextIsAnErrorNotACrash() {
        for text in ["name = \"x\"\n[\u{FFFD}roles]", "n=1979-05-27T:\n[roles]"] {
            #expect(throws: ThemeError.self) { try Theme.parse(text, source: "t.toml") }
        }
    }
}
