import AppStoreServerAPI
import Foundation

/// Where the demo keeps its state between runs: `dataset.json` (the moment the dataset is built
/// around and the chain it is signed with, made by the first run and kept) and `journal.jsonl`
/// (the writes it accepted, replayed at every start). `.lock` serialises making and removing them;
/// every running demo holds `.in-use` shared, so a reset never pulls the state from under one.
public struct DemoStateFolder: Sendable {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    var datasetPath: String { path + "/dataset.json" }
    var journalPath: String { path + "/journal.jsonl" }
    private var lockPath: String { path + "/.lock" }
    private var inUsePath: String { path + "/.in-use" }

    /// What `dataset.json` holds. The key signs what the demo serves: mode 600, never printed.
    struct Saved: Codable {
        var anchor: Date
        var x5c: [String]
        var leafKey: String
    }

    /// The state a demo starts from; holding it keeps the folder in use.
    struct Opened: Sendable {
        let anchor: Date
        let authority: SigningCertificateAuthority
        let journal: DemoJournal
        let inUse: LockedFile
    }

    /// Loads the anchor and chain, or makes them on the first run (anchored at `now`).
    func open(now: Date) throws(DemoStateError) -> Opened {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .cannotWrite(path, error.localizedDescription)
        }
        guard let lock = try LockedFile.open(lockPath, exclusive: true) else { throw .inUse(path) }
        defer { lock.close() }
        guard let inUse = try LockedFile.open(inUsePath, exclusive: false) else { throw .inUse(path) }
        if let data = FileManager.default.contents(atPath: datasetPath) {
            do {
                let saved = try AppStoreJSON.decode(Saved.self, from: data)
                let authority = try SigningCertificateAuthority(x5c: saved.x5c, leafKeyPEM: saved.leafKey)
                return Opened(anchor: saved.anchor, authority: authority, journal: DemoJournal(path: journalPath), inUse: inUse)
            } catch {
                inUse.close()
                throw .unreadable(datasetPath, error is DecodingError ? "not the demo's dataset (edited by hand?); iapdesk demo --reset starts a new one" : "\(error)")
            }
        }
        let anchor = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        // Writes kept without the dataset they were made on would be replayed onto a new chain and
        // fail verification: they are set aside, whole, and the new dataset starts empty.
        if FileManager.default.fileExists(atPath: journalPath) {
            let aside = journalPath.replacingOccurrences(of: ".jsonl", with: "") + ".without-dataset-\(Int(now.timeIntervalSince1970)).jsonl"
            guard rename(journalPath, aside) == 0 else {
                inUse.close()
                throw .cannotWrite(journalPath, "it was kept without its dataset and cannot be set aside: \(String(cString: strerror(errno)))")
            }
            FileHandle.standardError.write(Data(
                "note: demo state: \(datasetPath) was missing, so the writes kept without it were set aside in \(aside) and a new dataset starts empty.\n".utf8))
        }
        do {
            let authority = try DemoServer.signingAuthority(anchor: anchor)
            let saved = Saved(anchor: anchor, x5c: authority.x5c, leafKey: authority.leafKeyPEM)
            let data = try AppStoreJSON.encoder().encode(saved)
            // Written whole and renamed, so a crash never leaves half a chain.
            let temporary = datasetPath + ".new"
            guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600]) else {
                throw DemoStateError.cannotWrite(temporary, "the file cannot be created")
            }
            guard rename(temporary, datasetPath) == 0 else { throw DemoStateError.cannotWrite(datasetPath, String(cString: strerror(errno))) }
            return Opened(anchor: anchor, authority: authority, journal: DemoJournal(path: journalPath), inUse: inUse)
        } catch let error as DemoStateError {
            inUse.close()
            throw error
        } catch {
            inUse.close()
            throw .cannotWrite(datasetPath, String(describing: error))
        }
    }

    /// What `reset` removed, in words.
    public struct Removal: Sendable, CustomStringConvertible {
        public let path: String
        /// When the removed dataset was anchored; nil when there was none.
        public let anchor: Date?
        /// Journal lines by what they were, such as "extension": 2.
        public let writes: [String: Int]
        public let unreadableLines: Int

        public var description: String {
            guard anchor != nil || !writes.isEmpty || unreadableLines > 0 else {
                return "Nothing to remove: \(path) holds no demo state. The demo starts fresh."
            }
            var parts: [String] = []
            if let anchor { parts.append("the dataset built around \(Self.format(anchor)) and its signing chain") }
            let total = writes.values.reduce(0, +)
            if total == 0 {
                parts.append("no writes")
            } else {
                let kinds = writes.keys.sorted().map { "\(writes[$0]!) \($0)\(writes[$0]! == 1 ? "" : "s")" }.joined(separator: ", ")
                parts.append("\(total) journaled write\(total == 1 ? "" : "s") (\(kinds))")
            }
            if unreadableLines > 0 { parts.append("\(unreadableLines) unreadable journal line\(unreadableLines == 1 ? "" : "s")") }
            return "Removed the demo's kept state in \(path): \(parts.joined(separator: "; ")). The next demo starts fresh."
        }

        static func format(_ date: Date) -> String {
            InternetTime.string(from: date)
        }
    }

    /// Removes the kept state, saying what it was; refused while a demo runs on it.
    public func reset() throws(DemoStateError) -> Removal {
        guard FileManager.default.fileExists(atPath: path) else { return Removal(path: path, anchor: nil, writes: [:], unreadableLines: 0) }
        guard let lock = try LockedFile.open(lockPath, exclusive: true) else { throw .inUse(path) }
        defer { lock.close() }
        guard let free = try LockedFile.open(inUsePath, exclusive: true, wait: false) else { throw .inUse(path) }
        defer { free.close() }
        let anchor = FileManager.default.contents(atPath: datasetPath).flatMap { try? AppStoreJSON.decode(Saved.self, from: $0).anchor }
        let read = try DemoJournal(path: journalPath).read()
        var writes: [String: Int] = [:]
        for entry in read.entries where entry.kind != .sendAttempt && entry.kind != .notification && entry.kind != .massExtensionCompleted {
            writes[entry.noun, default: 0] += 1
        }
        do {
            for name in try FileManager.default.contentsOfDirectory(atPath: path) {
                try FileManager.default.removeItem(atPath: path + "/" + name)
            }
            try FileManager.default.removeItem(atPath: path)
        } catch {
            throw .cannotWrite(path, error.localizedDescription)
        }
        return Removal(path: path, anchor: anchor, writes: writes, unreadableLines: read.skipped.count)
    }
}

/// How a demo started from kept state: for the command line to say what it found.
public struct DemoKeptState: Sendable {
    public let path: String
    public let anchor: Date
    /// Journal lines replayed into the store.
    public let replayed: Int
    /// Lines that could not be (cut short, unknown), with their numbers: skipped, never fatal.
    public let skipped: [(line: Int, reason: String)]
    public let journalPath: String
}
