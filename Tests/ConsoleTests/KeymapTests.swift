@testable import Console
@testable import DeskCore
import Foundation
import TerminalUI
import Testing

/// One registry of commands: no key is shared within a context, and the config file can rebind.
@Suite struct KeymapTests {
    @Test func noTwoCommandsOfAContextShareAKey() {
        #expect(Keymap.standard.conflicts.isEmpty, "\(Keymap.standard.conflicts)")
        // The check itself finds a clash.
        let clash = try? Keymap.standard.rebinding(["list.up": ["j"]])
        #expect(clash == nil)
        #expect(throws: KeymapError.self) { try Keymap.standard.rebinding(["list.up": ["j"]]) }
    }

    @Test func keysAreReadByTheirNames() {
        #expect(Key(name: "q") == .character("q"))
        #expect(Key(name: "Space") == .character(" "))
        #expect(Key(name: "ctrl-r") == .control("r"))
        #expect(Key(name: "F2") == .function(2))
        #expect(Key(name: "PgDn") == .pageDown)
        #expect(Key(name: "↓") == .down)
        #expect(Key(name: "Hyper-Q") == nil)
        // Every name the help shows reads back as its key.
        for command in ActionRegistry.all {
            for key in command.keys { #expect(Key(name: key.name) == key, "\(key.name)") }
        }
    }

    @Test func theConfigFileRebindsAndTheConsoleFollows() throws {
        let file = try ConfigFile.parse("""
            [keys]
            "list.down" = ["n", "Down"]
            "list.up" = "p"
            """)
        #expect(file.keyBindings == ["list.down": ["n", "Down"], "list.up": ["p"]])
        let keymap = try Keymap.standard.rebinding(file.keyBindings)
        var state = ConsoleState(profileName: "p", environment: .production, isDemo: false, bundleId: "b", readOnly: false, themeName: "default")
        state.keymap = keymap
        state.pane = .notifications
        state.focus = .content
        state.notificationsPane = .loaded([])
        #expect(keymap.lookup(.character("n"), in: [.list])?.id == .listDown)
        #expect(keymap.lookup(.character("j"), in: [.list]) == nil)
        // The help shows the new keys.
        let backend = HeadlessBackend(width: 120, height: 40)
        state.overlay = .help
        Terminal(backend: backend).draw { area, buffer in ConsoleView.render(state, theme: .fallback, area: area, buffer: &buffer) }
        #expect(backend.text.contains("n/↓"))

        #expect(throws: KeymapError.self) { try Keymap.standard.rebinding(["list.dwon": ["n"]]) }
        #expect(throws: KeymapError.self) { try Keymap.standard.rebinding(["list.down": ["Hyper-Q"]]) }
        #expect(throws: ConfigurationError.self) { try ConfigFile.parse("[keys]\n\"list.down\" = 3\n") }
    }
}
