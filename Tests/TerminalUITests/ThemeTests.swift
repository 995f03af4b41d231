import Foundation
@testable import TerminalUI
import Testing

@Suite struct ThemeTests {
    @Test func withoutTheShippedThemesTheDefaultIsTheBuiltInOne() throws {
        let alone = ThemeCatalog(userDirectory: nil, shipped: nil)
        #expect(try alone.load("default") == Theme.fallback)
        #expect(throws: ThemeError.self) { try alone.load("light") }
    }

    @Test func shippedThemesLoadAndCoverEveryRole() throws {
        let catalog = ThemeCatalog(userDirectory: nil)
        #expect(catalog.names == ["default", "high-contrast", "light", "monochrome", "solarized-dark"])
        for name in catalog.names {
            let theme = try catalog.load(name)
            #expect(theme.name == name)
            #expect(Set(theme.roles.keys) == Set(ThemeRole.allCases), "\(name) misses roles")
        }
    }

    @Test func anInstalledBinaryFindsItsThemesBesideItsBinFolderAndNoBuildPathIsCompiledIn() {
        let candidates = ThemeCatalog.candidates(
            environment: ["IAPDESK_THEMES_DIR": "/opt/themes", "HOME": "/home/agent", "XDG_DATA_DIRS": "/usr/share"],
            executable: URL(fileURLWithPath: "/opt/iapdesk/bin/iapdesk")).map(\.path)
        #expect(Array(candidates.prefix(4)) == [
            "/opt/themes", "/opt/iapdesk/share/iapdesk/themes", "/home/agent/.local/share/iapdesk/themes", "/usr/share/iapdesk/themes",
        ])
        #expect(candidates.last == FileManager.default.currentDirectoryPath + "/themes")
        // The source tree this was built from is not among them.
        let sourceTree = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        #expect(!candidates.contains { $0.hasPrefix(sourceTree) && $0 != FileManager.default.currentDirectoryPath + "/themes" })
        let defaults = ThemeCatalog.candidates(environment: ["XDG_DATA_HOME": "/data"], executable: nil).map(\.path)
        #expect(Array(defaults.prefix(3)) == ["/data/iapdesk/themes", "/usr/local/share/iapdesk/themes", "/usr/share/iapdesk/themes"])
    }

    @Test func userThemeOverridesShippedOne() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("themes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "name = \"default\"\n[roles]\naccent = { fg = \"red\" }\n".write(to: folder.appendingPathComponent("default.toml"), atomically: true, encoding: .utf8)
        let theme = try ThemeCatalog(userDirectory: folder.path).load("default")
        #expect(theme[.accent].fg == .red)
        #expect(theme[.text] == Theme.fallback[.text])
    }

    @Test func badThemesExplainThemselves() {
        #expect(throws: ThemeError.self) { try Theme.parse("[roles]\nnope = { fg = 1 }", source: "t.toml") }
        #expect(throws: ThemeError.self) { try Theme.parse("[roles]\ntext = { fg = \"#12\" }", source: "t.toml") }
        #expect(throws: ThemeError.self) { try Theme.parse("[roles]\ntext = { fg = 300 }", source: "t.toml") }
        #expect(throws: ThemeError.self) { try ThemeCatalog(userDirectory: nil).load("../etc/passwd") }
        do {
            _ = try ThemeCatalog(userDirectory: nil).load("neon")
        } catch {
            #expect("\(error)".contains("available: default"))
        }
    }

    @Test func coloursDegradeToWhatTheTerminalShows() {
        #expect(Color.rgb(255, 0, 0).quantized(to: 256) == .indexed(196))
        #expect(Color.rgb(128, 128, 128).quantized(to: 256) == .indexed(244))
        #expect(Color.rgb(255, 0, 0).quantized(to: 16) == .indexed(9))
        #expect(Color.indexed(196).quantized(to: 8) == .indexed(1))
        #expect(Color.rgb(1, 2, 3).quantized(to: 1 << 24) == .rgb(1, 2, 3))
        // With 8 colours, greys are white, not black (unseen on a dark terminal), and the default
        // theme's selection keeps a background of colour.
        #expect(Color.indexed(244).quantized(to: 8) == .indexed(7))
        #expect(Color.rgb(128, 128, 128).quantized(to: 8) == .indexed(7))
        #expect(Color.indexed(24).quantized(to: 8) != .indexed(0))
        #expect(Color.indexed(8).quantized(to: 8) == .indexed(7))
        let mono = Theme.fallback.monochrome
        #expect(mono[.error].fg == nil)
        #expect(mono[.selection].modifiers.contains(.reverse))
    }
}
