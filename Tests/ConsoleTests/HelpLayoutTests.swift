@testable import Console
@testable import DeskCore
import Testing

/// The help's columns: no heading left alone at the foot of a column, and no key shown under
/// another section's heading when its section goes on in the next column.
@Suite struct HelpLayoutTests {
    typealias Entry = HelpOverlay.Entry

    static func section(_ name: String, keys count: Int) -> [Entry] {
        [Entry(keys: "", title: name, isHeading: true)] + (0..<count).map { Entry(keys: "\(name)\($0)", title: "key \($0)") }
    }

    @Test func aHeadingMovesToTheNextColumnAndASplitSectionRepeatsIt() {
        // Columns of 4 lines: A and its 2 keys fill 3, so B's heading would end the column.
        let lines = HelpOverlay.arranged(Self.section("A", keys: 2) + Self.section("B", keys: 5), height: 4)
        let columns = stride(from: 0, to: lines.count, by: 4).map { Array(lines[$0..<min($0 + 4, lines.count)]) }
        #expect(columns[0].map(\.title) == ["A", "key 0", "key 1", ""])
        #expect(columns[1].map(\.title) == ["B", "key 0", "key 1", "key 2"])
        #expect(columns[2].map(\.title) == ["B (continued)", "key 3", "key 4"])
        for column in columns {
            #expect(column.first?.isHeading == true, "every column starts with its section's name")
            #expect(!(column.count == 4 && column[3].isHeading && !column[3].title.isEmpty), "no heading ends a column")
        }
    }

    @Test func entriesThatFitAreLeftAsTheyAre() {
        let entries = Self.section("A", keys: 2) + Self.section("B", keys: 1)
        #expect(HelpOverlay.arranged(entries, height: 10).map(\.title) == entries.map(\.title))
    }
}
