@testable import TerminalUI
import Testing

@Suite struct BufferAndWidgetTests {
    @Test func widthsMatchGlibc() {
        #expect(TextWidth.of("abc") == 3)
        #expect(TextWidth.of("山田") == 4)
        #expect(TextWidth.of("e\u{301}") == 1)
        #expect(TextWidth.of("🚀") == 2)
        #expect(TextWidth.truncate("com.iapdesk.demo.pro.monthly", to: 10) == "com.iapde…")
        #expect(TextWidth.truncate("山田太郎", to: 5) == "山田…")
        // Product IDs keep both ends, so coins.100 and coins.1000 stay distinct.
        let short = TextWidth.truncateMiddle("com.iapdesk.demo.coins.100", to: 16)
        let long = TextWidth.truncateMiddle("com.iapdesk.demo.coins.1000", to: 16)
        #expect(TextWidth.of(short) == 16 && TextWidth.of(long) == 16)
        #expect(short != long)
        #expect(short.hasSuffix("coins.100") && long.hasSuffix("oins.1000"))
        #expect(TextWidth.truncateMiddle("山田太郎山田太郎", to: 7).hasSuffix("太郎"))
        #expect(TextWidth.of(TextWidth.truncateMiddle("山田太郎山田太郎", to: 7)) <= 7)
        #expect(TextWidth.sanitize("a\u{1B}[31mb\tc") == "a [31mb c")
    }

    @Test func wideCharactersTakeTwoCells() {
        var buffer = Buffer(width: 6, height: 1)
        buffer.write("山a", x: 0, y: 0)
        #expect(buffer[0, 0].symbol == "山")
        #expect(buffer[1, 0].isContinuation)
        #expect(buffer[2, 0].symbol == "a")
        buffer.write("x", x: 1, y: 0)
        #expect(buffer[0, 0].symbol == " ")
        #expect(buffer.text == " xa")
        var clipped = Buffer(width: 3, height: 1)
        clipped.write("ab山", x: 0, y: 0)
        #expect(clipped.text == "ab")
    }

    @Test func diffSendsOnlyChanges() {
        var a = Buffer(width: 10, height: 3)
        a.write("hello", x: 0, y: 0)
        var b = a
        b.write("J", x: 0, y: 0)
        #expect(b.diff(from: a).count == 1)
        #expect(b.diff(from: Buffer(width: 5, height: 3)).count == 30)
        let backend = HeadlessBackend(width: 20, height: 2)
        let terminal = Terminal(backend: backend)
        terminal.draw { _, buffer in buffer.write("one", x: 0, y: 0) }
        terminal.draw { _, buffer in buffer.write("two", x: 0, y: 0) }
        #expect(terminal.lastChangeCount == 3)
        #expect(backend.text == "two\n")
    }

    /// Blanks take a neighbour's foreground and weight, which they cannot show, so that a row in
    /// one colour is one run; nothing that can be seen changes.
    @Test func blanksTakeTheirNeighboursUnseenStyle() {
        let border = Style(fg: .indexed(75))
        let alert = Style(fg: .indexed(215))
        let selected = Style(fg: .indexed(231), bg: .indexed(24), modifiers: .bold)
        var buffer = Buffer(width: 16, height: 3)
        buffer.write("│", x: 0, y: 0, style: border)
        buffer.write("ab", x: 2, y: 0, style: alert)
        buffer.write("cd", x: 5, y: 0, style: alert)
        buffer.write("│", x: 9, y: 0, style: border)
        buffer.write("u", x: 11, y: 0, style: alert)
        buffer[12, 0] = Cell(" ", style: Style(fg: .indexed(1), modifiers: .underline))
        buffer.write("v", x: 13, y: 0, style: alert)
        buffer.fill(Rect(x: 1, y: 1, width: 8, height: 1), with: selected)
        buffer.write("│", x: 0, y: 1, style: border)
        buffer.write("xy", x: 2, y: 1, style: selected)
        buffer.write("│", x: 9, y: 1, style: border)
        let before = buffer
        buffer.mergeInvisibleStyles()

        #expect(buffer[1, 0].style == alert, "the blank before a word takes the word's colour")
        #expect(buffer[4, 0].style == alert, "a gap between words in one colour is in that colour")
        #expect(buffer[6, 0].style == alert)
        #expect(buffer[7, 0].style == border && buffer[8, 0].style == border, "a gap before the border takes the border's")
        #expect(buffer[12, 0].style == before[12, 0].style, "an underlined blank is seen: kept")
        #expect(buffer[14, 0].style == .plain && buffer[15, 0].style == .plain, "blanks that end a row match an erased line")
        #expect(buffer[1, 1].style == selected, "a highlighted blank takes the highlighted word's")
        #expect(buffer[8, 1].style == selected, "not the border's: its background differs, so the highlight's is kept")
        for index in before.cells.indices {
            let (old, new) = (before.cells[index], buffer.cells[index])
            #expect(old.symbol == new.symbol && old.style.bg == new.style.bg)
            #expect(old.style.modifiers.intersection([.underline, .reverse]) == new.style.modifiers.intersection([.underline, .reverse]))
            if old.symbol != " " { #expect(old.style == new.style) }
        }
    }

    @Test func layoutSplitsByConstraints() {
        let area = Rect(x: 0, y: 0, width: 100, height: 10)
        let parts = Layout.split(area, .horizontal, [.length(10), .percentage(20), .fill(1), .fill(3)])
        #expect(parts.map(\.width) == [10, 20, 17, 53])
        #expect(parts.map(\.x) == [0, 10, 30, 47])
        let tight = Layout.split(Rect(x: 0, y: 0, width: 10, height: 5), .vertical, [.length(3), .length(4), .fill(1)])
        #expect(tight.map(\.height) == [3, 2, 0])
    }

    @Test func tableRendersOnlyVisibleRowsAndFollowsSelection() {
        var asked: [Int] = []
        var buffer = Buffer(width: 30, height: 5)
        let table = Table(columns: [.init("ID", .length(6)), .init("NAME", .fill(1))], rowCount: 10_000, selected: 9_999, offset: 0,
                          headerStyle: Style(fg: .indexed(110), modifiers: .bold)) { index in
            asked.append(index)
            return (["\(index)", "row \(index)"], nil)
        }
        table.render(in: buffer.area, buffer: &buffer)
        #expect(asked == [9_996, 9_997, 9_998, 9_999])
        #expect(buffer.text.split(separator: "\n").first?.hasPrefix("ID") == true)
        #expect(buffer.text.contains("9999   row 9999"))
        let marker = (0..<5).map { buffer[29, $0] }.first { $0.symbol == "▐" }
        #expect(marker?.style == Style(fg: .indexed(110)), "the header's colour without its weight, which a block does not show")
        #expect(Table.scrolledOffset(selected: 5, offset: 0, visible: 3, count: 10) == 3)
        #expect(Table.scrolledOffset(selected: 1, offset: 3, visible: 3, count: 10) == 1)
    }

    @Test func paragraphWrapsAtWords() {
        let paragraph = Paragraph("the quick brown fox jumps")
        #expect(paragraph.layout(width: 10).map { $0.map(\.text).joined() } == ["the quick ", "brown fox ", "jumps"])
    }

    @Test func aHangingIndentKeepsWrappedLinesUnderTheirText() {
        let lines: [[Paragraph.Span]] = [[.init("  Locales: en-US (the profile sets others).")]]
        let laid = Paragraph(lines: lines, hangingIndent: true).layout(width: 20).map { $0.map(\.text).joined() }
        #expect(laid == ["  Locales: en-US ", "  (the profile sets ", "  others)."])
        // A word longer than the room past the indent is cut, and the layout ends.
        let long = Paragraph(lines: [[.init("  " + String(repeating: "x", count: 30))]], hangingIndent: true).layout(width: 10)
        #expect(long.map { $0.map(\.text).joined() } == ["  ", "  xxxxxxxx", "  xxxxxxxx", "  xxxxxxxx", "  xxxxxx"])
        #expect(Paragraph(lines: lines).layout(width: 20).map { $0.map(\.text).joined() }[1] == "(the profile sets ")
    }

    @Test func aFormRowWrapsUnderItsValue() {
        let row: [Paragraph.Span] = [.init("Customer  "), .init("original transaction 2000 (order 6KEA)")]
        let laid = Paragraph(lines: [row, [.init("Adds 7 days for the order")]], hangsUnderValue: true).layout(width: 31)
            .map { $0.map(\.text).joined() }
        // The label's column holds; a line of one span wraps to the left edge.
        #expect(laid == ["Customer  original transaction ", "          2000 (order 6KEA)", "Adds 7 days for the order"])
        let modal = Modal(title: "t", lines: [row], style: .plain, borderStyle: .plain, width: 35, hangsUnderValue: true)
        var buffer = Buffer(width: 40, height: 8)
        modal.render(in: Rect(x: 0, y: 0, width: 40, height: 8), buffer: &buffer)
        #expect(buffer.text.contains("│ Customer  original transaction  │"), "\(buffer.text)")
        #expect(buffer.text.contains("│           2000 (order 6KEA)     │"), "\(buffer.text)")
    }

    @Test func anUnwrappedLineCutAtTheEdgeEndsInAnEllipsis() {
        var buffer = Buffer(width: 12, height: 2)
        let lines: [[Paragraph.Span]] = [[.init("9.99 EUR  "), .init("2026-11-27")], [.init("fits      "), .init("ok   ")]]
        Paragraph(lines: lines, wrap: false).render(in: Rect(x: 0, y: 0, width: 12, height: 2), buffer: &buffer)
        // Trailing spaces past the edge are no text: a line that only loses them is not cut.
        #expect(buffer.text == "9.99 EUR  2…\nfits      ok")
    }

    @Test func textInputEditsAndTakesPastes() {
        var input = TextInputState(maxLength: 12)
        for character in "MK5" { _ = input.handle(.character(character)) }
        _ = input.handle(.paste("TTT\nVWJH\u{7}xyz"))
        #expect(input.text == "MK5TTT VWJHx")
        _ = input.handle(.control("u"))
        #expect(input.text.isEmpty)
        _ = input.handle(.paste(String(repeating: "9", count: 5000)))
        #expect(input.text.count == 12)
        _ = input.handle(.home)
        _ = input.handle(.delete)
        #expect(input.text.count == 11)
        #expect(input.handle(.up) == false)
    }

    @Test func keyDecoderFindsPastesAndEscape() {
        let raw: [RawKey] = [.scalar("a")] + "\u{1B}[200~hi\u{1B}[201~".unicodeScalars.map { .scalar($0) } + [.scalar("\u{1B}"), .key(.up), .scalar("\u{3}"), .scalar("\r")]
        #expect(KeyDecoder.decode(raw) == [.character("a"), .paste("hi"), .escape, .up, .control("c"), .enter])
        #expect(KeyDecoder.decode("\u{1B}[1;5A".unicodeScalars.map { .scalar($0) }).isEmpty)
        #expect(KeyDecoder.decode([.scalar("\u{1B}"), .scalar("q")]) == [.escape, .character("q")])
    }

    /// Home and End as tmux sends them under TERM=xterm-256color (whose entry spells them otherwise,
    /// so curses hands them over as characters), and the other common spellings.
    @Test func keyDecoderKnowsEditingKeysInEveryCommonSpelling() {
        func decode(_ text: String) -> [Key] { KeyDecoder.decode(text.unicodeScalars.map { .scalar($0) }) }
        #expect(decode("\u{1B}[1~\u{1B}[4~") == [.home, .end])
        #expect(decode("\u{1B}[7~\u{1B}[8~\u{1B}[H\u{1B}[F\u{1B}OH\u{1B}OF") == [.home, .end, .home, .end, .home, .end])
        #expect(decode("\u{1B}[5~\u{1B}[6~\u{1B}[3~\u{1B}OA\u{1B}[B") == [.pageUp, .pageDown, .delete, .up, .down])
        #expect(decode("\u{1B}[99~x") == [.character("x")], "an unknown sequence is still dropped whole")
    }

    @Test func treeFoldsByPath() {
        let tree = TreeNode(label: "root", children: [
            TreeNode(label: "a", value: "1", path: "a"),
            TreeNode(label: "b", children: [TreeNode(label: "c", value: "2", path: "b.c")], path: "b"),
        ], path: "")
        #expect(tree.lines(folded: []).count == 4)
        #expect(tree.lines(folded: ["b"]).count == 3)
        var buffer = Buffer(width: 20, height: 4)
        TreeView(lines: tree.lines(folded: ["b"]), selected: 2, offset: 0, keyStyle: .plain, valueStyle: .plain, selectedStyle: .plain)
            .render(in: buffer.area, buffer: &buffer)
        #expect(buffer.text.contains("▸ b … 1 items"))
    }
}

@Suite struct ListWidgetTests {
    @Test func showsTheNewestItemsOrTheSelection() {
        var buffer = Buffer(width: 10, height: 2)
        List(items: (1...5).map { ("item \($0)", Style.plain) }).render(in: buffer.area, buffer: &buffer)
        #expect(buffer.text == "item 4\nitem 5")
        var selected = Buffer(width: 10, height: 2)
        List(items: (1...5).map { ("item \($0)", Style.plain) }, selected: 1).render(in: selected.area, buffer: &selected)
        #expect(selected.text == "item 1\nitem 2")
    }
}
