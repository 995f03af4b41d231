import AppStoreServerAPI
import Console
@testable import DeskCore
import DeskStore
import Foundation
import Testing

/// The audit ledger in the store: the same on the SQLite file and on a team's server.
@Suite struct LedgerStoreTests {
    static let account = WriteAccount(
        profile: "support", environment: .production, baseURL: "https://api.storekit.apple.com", bundleId: "com.example.app", keyId: "2X9R4HXF34")

    func intent(_ identifier: String, agent: String, at time: Date = Date(timeIntervalSince1970: 1_800_000_000)) -> AuditLedger.Entry {
        AuditLedger.Entry(
            time: time, event: .intent, requestIdentifier: identifier, write: "extend", method: "PUT",
            path: "/inApps/v1/subscriptions/extend/2000000400000044", body: #"{"extendByDays":3}"#, account: Self.account,
            subject: "original transaction 2000000400000044", source: .console, agent: agent)
    }

    @Test(arguments: StoreKind.allCases) func linesComeBackInOrderByteForByte(kind: StoreKind) async throws {
        try await kind.fixture().with { store in
            let ledgerStore = try #require(store as? any LedgerStore)
            let lines = (0..<5).map { index in
                LedgerLine(
                    time: Date(timeIntervalSince1970: 1_800_000_000 + Double(index)), requestIdentifier: "r\(index)", write: "extend",
                    path: "/p/\(index)", agent: index == 2 ? nil : "sam", entry: Data(#"{"n":\#(index),"é":"✓"}"#.utf8))
            }
            for line in lines { try await ledgerStore.appendLedgerLine(line) }
            #expect(try await ledgerStore.ledgerLines() == lines)
        }
    }

    @Test(arguments: StoreKind.allCases) func aLegacyLedgerIsImportedOnceWithEveryByte(kind: StoreKind) async throws {
        try await kind.fixture().with { store in
            let ledgerStore = try #require(store as? any LedgerStore)
            let cut = LedgerLine(time: Date(timeIntervalSince1970: 0), requestIdentifier: "", write: "", path: "", agent: nil, entry: Data([0x7b, 0x22, 0xff, 0xfe]))
            let whole = LedgerLine(time: Date(timeIntervalSince1970: 1_800_000_000), requestIdentifier: "a", write: "extend", path: "/p", agent: "sam", entry: Data("{}".utf8))
            #expect(try await ledgerStore.importLedgerLines([whole, cut], source: "/home/sam/.local/state/iapdesk/audit.jsonl") == 2)
            #expect(try await ledgerStore.importLedgerLines([whole, cut], source: "/home/sam/.local/state/iapdesk/audit.jsonl") == nil)
            #expect(try await ledgerStore.ledgerLines() == [whole, cut])
        }
    }

    @Test(arguments: StoreKind.allCases) func theFileLedgerIsImportedOnFirstStartAndLeftAsItWas(kind: StoreKind) async throws {
        let fixture = try await kind.fixture()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let legacyPath = folder.url.appendingPathComponent("audit.jsonl").path
        let file = try AuditLedger(path: legacyPath)
        try await file.append(intent("kept-1", agent: "sam"))
        try await file.append(intent("kept-2", agent: "sam"))
        // A line cut short by a crash: kept as it is, counted as unreadable.
        let handle = try #require(FileHandle(forWritingAtPath: legacyPath))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"time":"2026-11-2"#.utf8))
        try handle.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: legacyPath))

        let store = try await fixture.open()
        let ledgerStore = try #require(store as? any LedgerStore)
        let (ledger, problem) = await AuditLedger.inStore(ledgerStore, location: "the store", importing: legacyPath)
        #expect(problem == nil)
        let (entries, unreadable) = try await ledger.read()
        #expect(entries.map(\.requestIdentifier) == ["kept-1", "kept-2"])
        #expect(unreadable == 1)
        try await ledger.append(intent("new", agent: "kim"))
        // A second start imports nothing again.
        let (again, _) = await AuditLedger.inStore(ledgerStore, location: "the store", importing: legacyPath)
        #expect(try await again.entries().map(\.requestIdentifier) == ["kept-1", "kept-2", "new"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: legacyPath)) == before)
        try await store.close()
        await fixture.cleanup()
    }

    /// Two agents on two machines: each one's writes are in the other's ledger at once.
    @Test(arguments: StoreKind.allCases) func agentsOnOneStoreSeeEachOthersWrites(kind: StoreKind) async throws {
        let fixture = try await kind.fixture()
        let first = try await fixture.open()
        let second = try await fixture.open()
        let sam = AuditLedger(.store(try #require(first as? any LedgerStore), location: "team"))
        let kim = AuditLedger(.store(try #require(second as? any LedgerStore), location: "team"))
        try await sam.append(intent("by-sam", agent: "sam"))
        var outcome = intent("by-sam", agent: "sam")
        outcome.event = .outcome
        outcome.outcome = .applied
        try await sam.append(outcome)
        let seen = try await kim.writes()
        #expect(seen.map(\.requestIdentifier) == ["by-sam"])
        #expect(seen.first?.intent.agent == "sam")
        #expect(seen.first?.isResolved == true)
        try await first.close()
        try await second.close()
        await fixture.cleanup()
    }
}
