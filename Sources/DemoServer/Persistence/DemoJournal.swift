import AppStoreServerAPI
import Foundation

/// The writes the demo accepted, one JSON line each. A line is appended under an exclusive flock
/// and fsynced before the write is answered; the whole file is read under a shared one, so two
/// demo processes (the console and a command) never interleave or read half a line.
final class DemoJournal: Sendable {
    let path: String

    init(path: String) {
        self.path = path
    }

    /// A line that could not be replayed, and why.
    struct Skipped: Sendable, Equatable {
        let line: Int
        let reason: String
    }

    /// The journal held for writing by this process: other processes' reads and writes wait.
    func lockForWriting() throws(DemoStateError) -> LockedFile? {
        try LockedFile.open(path, exclusive: true, flags: O_RDWR | O_APPEND | O_CREAT)
    }

    /// Appends a line (through `held`, the lock this process holds, if any) and returns where it starts.
    @discardableResult
    func append(_ entry: DemoJournalEntry, through held: LockedFile? = nil) throws(DemoStateError) -> UInt64 {
        let data: Data
        do {
            data = try AppStoreJSON.encoder().encode(entry)
        } catch {
            throw .cannotWrite(path, "the write could not be encoded: \(error)")
        }
        let opened = held == nil ? try lockForWriting() : nil
        guard let file = held ?? opened else { return 0 }
        defer { opened?.close() }
        let fd = file.fd
        // A line cut short by a crash would swallow this one: start on a line of its own.
        var size = stat()
        var bytes = Data()
        var start = UInt64(0)
        if fstat(fd, &size) == 0, size.st_size > 0 {
            start = UInt64(size.st_size)
            var last: UInt8 = 0
            if pread(fd, &last, 1, size.st_size - 1) == 1, last != UInt8(ascii: "\n") {
                bytes.append(UInt8(ascii: "\n"))
                start += 1
            }
        }
        bytes.append(data)
        bytes.append(UInt8(ascii: "\n"))
        // Written whole or said not to be: a short write is carried on, an error reported.
        let failure: Int32? = bytes.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> Int32? in
            var offset = 0
            while offset < buffer.count {
                let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
        if let failure { throw .cannotWrite(path, String(cString: strerror(failure))) }
        guard fsync(fd) == 0 else { throw .cannotWrite(path, String(cString: strerror(errno))) }
        return start
    }

    /// The file's size now, read without a lock: whether another process appended since `offset`.
    func size() -> UInt64 {
        var info = stat()
        return stat(path, &info) == 0 ? UInt64(info.st_size) : 0
    }

    /// The whole lines after `offset` with where each starts, and where the last one ends; read
    /// through `held` or under a shared lock of its own. Lines that cannot be read are left out.
    func lines(after offset: UInt64, through held: LockedFile? = nil) -> (lines: [(start: UInt64, entry: DemoJournalEntry)], end: UInt64) {
        let opened: LockedFile? = held == nil ? ((try? LockedFile.open(path, exclusive: false, flags: O_RDONLY)) ?? nil) : nil
        guard let file = held ?? opened else { return ([], offset) }
        defer { opened?.close() }
        var info = stat()
        guard fstat(file.fd, &info) == 0, UInt64(info.st_size) > offset else { return ([], offset) }
        var bytes = [UInt8](repeating: 0, count: Int(UInt64(info.st_size) - offset))
        let count = bytes.withUnsafeMutableBytes { pread(file.fd, $0.baseAddress!, $0.count, off_t(offset)) }
        guard count > 0 else { return ([], offset) }
        // Only whole lines: a line being written by another process is read next time.
        guard let lastNewline = bytes[..<count].lastIndex(of: UInt8(ascii: "\n")) else { return ([], offset) }
        var lines: [(start: UInt64, entry: DemoJournalEntry)] = []
        var lineStart = 0
        for index in 0...lastNewline where bytes[index] == UInt8(ascii: "\n") {
            if index > lineStart, let entry = try? AppStoreJSON.decode(DemoJournalEntry.self, from: Data(bytes[lineStart..<index])), entry.problem == nil {
                lines.append((offset + UInt64(lineStart), entry))
            }
            lineStart = index + 1
        }
        return (lines, offset + UInt64(lastNewline) + 1)
    }

    /// Every readable line in order; the others are skipped and named, never fatal. `end` is where
    /// the last whole line ends: what a later `lines(after:)` reads from.
    func read() throws(DemoStateError) -> (entries: [DemoJournalEntry], skipped: [Skipped], end: UInt64) {
        guard FileManager.default.fileExists(atPath: path) else { return ([], [], 0) }
        guard let file = try LockedFile.open(path, exclusive: false, flags: O_RDONLY) else { return ([], [], 0) }
        defer { file.close() }
        guard let data = try? FileHandle(fileDescriptor: file.fd, closeOnDealloc: false).readToEnd() ?? Data() else {
            throw .unreadable(path, "the journal cannot be read")
        }
        var entries: [DemoJournalEntry] = []
        var skipped: [Skipped] = []
        for (index, line) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
            do {
                let entry = try AppStoreJSON.decode(DemoJournalEntry.self, from: Data(line))
                // A line edited by hand may hold what the server itself never accepts.
                if let problem = entry.problem {
                    skipped.append(Skipped(line: index + 1, reason: problem))
                } else {
                    entries.append(entry)
                }
            } catch {
                let reason = (try? JSONSerialization.jsonObject(with: Data(line))) == nil
                    ? "not a whole JSON line (cut short by a crash?)" : "not a write this version of iapdesk knows (\(error))"
                skipped.append(Skipped(line: index + 1, reason: reason))
            }
        }
        let end = data.lastIndex(of: UInt8(ascii: "\n")).map { UInt64($0 - data.startIndex) + 1 } ?? 0
        return (entries, skipped, end)
    }
}
