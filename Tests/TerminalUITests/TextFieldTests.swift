@testable import TerminalUI
import Testing

/// A small deterministic generator, so a failing sequence can be replayed from its seed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite struct TextFieldTests {
    /// Pieces that break index arithmetic done in characters: marks that join the previous
    /// character, joiners, modifiers, halves of flags, wide and control characters.
    static let pieces: [String] = [
        "a", "Z", "7", " ", "é", "e", "\u{301}", "\u{308}", "\u{20DD}", "👍", "\u{1F3FD}", "👍🏽", "🇺", "🇸", "🇺🇸", "\u{200D}",
        "👨‍👩‍👧", "\u{FE0F}", "山", "田", "ｶ", "한", "\u{1100}", "\u{1161}", "\u{11A8}", "\u{7}", "\u{1B}", "\u{7F}", "\u{85}",
        "\u{FFFD}", "\t", "\n", "\u{0}", "ـ", "ब", "\u{94D}", "क",
    ]

    func type(_ text: String, into field: inout TextInputState) {
        for character in text { _ = field.handle(.character(character)) }
    }

    @Test func aCombiningAccentThenAnotherKeyKeepsTheCursorOnAClusterBoundary() {
        var field = TextInputState(maxLength: 64)
        _ = field.handle(.character("a"))
        _ = field.handle(.character("\u{301}"))
        _ = field.handle(.character("b"))
        #expect(field.text == "a\u{301}b")
        #expect(field.cursor == 2)
        _ = field.handle(.backspace)
        _ = field.handle(.backspace)
        #expect(field.text.isEmpty)
    }

    @Test func backspaceRemovesAWholeEmojiOrFlag() {
        var field = TextInputState(maxLength: 64)
        type("x👍🏽", into: &field)
        _ = field.handle(.backspace)
        #expect(field.text == "x")
        _ = field.handle(.character("🇺"))
        _ = field.handle(.character("🇸"))
        #expect(field.text == "x🇺🇸")
        #expect(field.cursor == 2)
        _ = field.handle(.backspace)
        #expect(field.text == "x")
        _ = field.handle(.left)
        _ = field.handle(.delete)
        #expect(field.text.isEmpty)
    }

    @Test func aDecomposedAccentTypedInACommandStaysOneLetter() {
        var field = TextInputState(maxLength: 256)
        type("theme cafe", into: &field)
        _ = field.handle(.character("\u{301}"))
        #expect(field.text == "theme caf\u{E9}")
        #expect(field.cursor == 10)
        _ = field.handle(.left)
        _ = field.handle(.character("x"))
        #expect(field.text == "theme cafx\u{E9}")
    }

    @Test func typingIntoAPrefilledValueReplacesIt() {
        var days = TextInputState(text: "7", maxLength: 2, selected: true)
        _ = days.handle(.character("1"))
        _ = days.handle(.character("4"))
        #expect(days.text == "14")
        var edited = TextInputState(text: "7", maxLength: 2, selected: true)
        _ = edited.handle(.end)
        _ = edited.handle(.character("1"))
        #expect(edited.text == "71", "after moving the cursor the value is edited, not replaced")
        var cleared = TextInputState(text: "30", maxLength: 2, selected: true)
        _ = cleared.handle(.backspace)
        #expect(cleared.text.isEmpty)
    }

    @Test func controlCharactersNeverEnterTheText() {
        var field = TextInputState(maxLength: 64)
        _ = field.handle(.character("\u{1B}"))
        _ = field.handle(.character("\u{85}"))
        _ = field.handle(.paste("a\u{0}b\u{7F}c\nd"))
        #expect(field.text == "abc d")
    }

    @Test func theLengthLimitCountsClusters() {
        var field = TextInputState(maxLength: 3)
        _ = field.handle(.paste("é👍🏽🇺🇸山"))
        #expect(field.text == "é👍🏽🇺🇸")
        _ = field.handle(.character("\u{301}"))
        #expect(field.text.count == 3)
    }

    @Test func randomEditsKeepEveryInvariant() {
        for seed in UInt64(1)...300 {
            var random = SplitMix64(seed: seed)
            var field = TextInputState(maxLength: Int.random(in: 1...24, using: &random))
            for step in 0..<120 {
                let key: Key
                switch Int.random(in: 0..<14, using: &random) {
                case 0..<6: key = .character(Character(Self.pieces.randomElement(using: &random)!))
                case 6: key = .paste((0..<Int.random(in: 0...6, using: &random)).map { _ in Self.pieces.randomElement(using: &random)! }.joined())
                case 7: key = .backspace
                case 8: key = .delete
                case 9: key = .left
                case 10: key = .right
                case 11: key = [.home, .end, .control("a"), .control("e")].randomElement(using: &random)!
                case 12: key = .control("w")
                default: key = .control("u")
                }
                _ = field.handle(key)
                #expect((0...field.text.count).contains(field.cursor), "seed \(seed) step \(step)")
                #expect(field.text.count <= field.maxLength, "seed \(seed) step \(step)")
                #expect(!field.text.unicodeScalars.contains { $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) })
                for width in [2, 5, 13] {
                    var buffer = Buffer(width: width + 2, height: 1)
                    TextInput(state: field).render(in: Rect(x: 1, y: 0, width: width, height: 1), buffer: &buffer)
                    #expect(TextWidth.of(buffer.text) <= width + 2, "seed \(seed)")
                }
            }
        }
    }

    @Test func theCursorStaysVisibleInALongField() {
        var field = TextInputState(maxLength: 1 << 20)
        _ = field.handle(.paste(String(repeating: "abcdefghij", count: 6_600)))
        var buffer = Buffer(width: 20, height: 1)
        TextInput(state: field).render(in: buffer.area, buffer: &buffer)
        #expect(buffer.text.hasSuffix("hij"))
        _ = field.handle(.home)
        var start = Buffer(width: 20, height: 1)
        TextInput(state: field).render(in: start.area, buffer: &start)
        #expect(start.text.hasPrefix("abcdefghij"))
    }

    @Test func widthsAddUpPerCell() {
        #expect(TextWidth.of("🇺🇸") == 2)
        #expect(TextWidth.of("👍🏽") == 2)
        #expect(TextWidth.of("e\u{301}") == 1)
        #expect(TextWidth.of("\u{7}") == 1)
        var buffer = Buffer(width: 6, height: 1)
        let end = buffer.write("🇺🇸é", x: 0, y: 0)
        #expect(end == TextWidth.of("🇺🇸é"))
        #expect(buffer[2, 0].symbol == "e\u{301}")
    }

    @Test func aPasteSplitOverReadsStaysOnePaste() {
        var decoder = KeyDecoder()
        let body = String(repeating: "eyJhbGciOiJFUzI1NiJ9.", count: 400) + "\rEND"
        let raw = ("\u{1B}[200~" + body + "\u{1B}[201~x").unicodeScalars.map { RawKey.scalar($0) }
        var keys: [Key] = []
        var index = 0
        // Reads of awkward sizes: the markers and the paste are cut anywhere.
        for size in [3, 4097, 1, 2, 5, 2_000, 4_000, 7] where index < raw.count {
            let end = min(raw.count, index + size)
            keys += decoder.feed(Array(raw[index..<end]))
            index = end
        }
        keys += decoder.feed(Array(raw[index...]))
        keys += decoder.flush()
        #expect(keys == [.paste(body), .character("x")])
    }

    @Test func aPasteWithoutItsEndIsEndedByFlush() {
        var decoder = KeyDecoder()
        #expect(decoder.feed("\u{1B}[200~abc".unicodeScalars.map { .scalar($0) }).isEmpty)
        #expect(decoder.isInsidePaste)
        #expect(decoder.flush() == [.paste("abc")])
        #expect(!decoder.isInsidePaste)
    }
}
