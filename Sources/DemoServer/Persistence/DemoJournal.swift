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

    func append(_ entry: DemoJournalEntry) throws(DemoStateError) {
        let data: Data
        do {
            data = try AppStoreJSON.encoder().encode(entry)
        } catch {
            throw .cannotWrite(path, "the write could not be encoded: \(error)")
        }
        guard let file = try LockedFile.open(path, exclusive: true, flags: O_RDWR | O_APPEND | O_CREAT) else { return }
        defer { file.close() }
        let fd = file.fd
        // A line cut short by a crash would swallow this one: start on a line of its own.
        var size = stat()
        var bytes = Data()
        if fstat(fd, &size) == 0, size.st_size > 0 {
            var last: UInt8 = 0
            if pread(fd, &last, 1, size.st_size - 1) == 1, last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
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
    }

    /// Every readable line in order; the others are skipped and named, never fatal.
    func read() throws(DemoStateError) -> (entries: [DemoJournalEntry], skipped: [Skipped]) {
        guard FileManager.default.fileExists(atPath: path) else { return ([], []) }
        guard let file = try LockedFile.open(path, exclusive: false, flags: O_RDONLY) else { return ([], []) }
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
        return (entries, skipped)
    }
}
