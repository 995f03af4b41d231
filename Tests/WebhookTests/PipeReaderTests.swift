import Foundation
import Testing

/// The process tests' output reader: a test judges a child's whole output, never a cut-off one.
@Suite struct PipeReaderTests {
    /// A child whose output pipe outlives it, as when a process spawned beside it by another test
    /// inherited the write end: its output is read whole once it exits, without waiting for the pipe's end.
    @Test func anOutputIsReadWholeWhileAnotherProcessHoldsThePipeOpen() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // The background sleep keeps standard output's write end open after sh exits (and only that:
        // Foundation learns of sh's exit through a descriptor of its own, closed here). The output is
        // more than a pipe holds, so it is read while sh still writes.
        let holder = "(for fd in $(ls /proc/$$/fd); do [ $fd -gt 2 ] && eval \"exec $fd>&-\"; done; exec sleep 600) &"
        let script = "\(holder) echo $!; head -c 300000 /dev/zero | tr '\\0' x; echo"
        let running = try ListenProcessTests.Running(["-c", script], folder: folder, executable: URL(fileURLWithPath: "/bin/sh"))
        let status = try await running.exitStatus()
        let lines = running.stdout.split(separator: "\n")
        if let holder = lines.first.flatMap({ Int32($0) }) { kill(holder, SIGKILL) }
        #expect(status == 0, "the output was not all read: \(running.stdout.count) characters")
        #expect(lines.count == 2 && lines.last?.count == 300_000, "\(lines.count) lines, the last of \(lines.last?.count ?? 0)")
    }

    /// Outputs larger than a pipe holds, of processes started together on a busy machine: each is
    /// read whole and to its end (the last pipe-full is what a readability handler left unread).
    @Test func theOutputsOfProcessesStartedTogetherAreEachReadWhole() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let size = 392_000
        let runs = try (0..<24).map { _ in
            try ListenProcessTests.Running(["-c", "head -c \(size) /dev/zero"], folder: folder, executable: URL(fileURLWithPath: "/bin/sh"))
        }
        for running in runs {
            #expect(try await running.exitStatus() == 0, "the output was not all read: \(running.stdout.utf8.count) bytes")
            #expect(running.stdout.utf8.count == size)
        }
    }
}
