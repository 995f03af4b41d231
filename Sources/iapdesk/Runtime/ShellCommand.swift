import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs `sh -c COMMAND` in a process group of its own with `input` on its standard input (its
/// output goes where ours does), and ends the whole group when it outlives its time: a hook that
/// hangs, or leaves a child behind, cannot hold the caller.
enum ShellCommand {
    enum Outcome: Equatable {
        case exited(Int32)
        case killedBySignal(Int32)
        /// Stopped at its deadline (SIGTERM to the group, SIGKILL two seconds later).
        case timedOut
        case couldNotStart(String)
    }

    static func run(_ command: String, input: Data, environment: [String: String], timeout: TimeInterval) async -> Outcome {
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { return .couldNotStart(String(cString: strerror(errno))) }
        let (readEnd, writeEnd) = (pipe[0], pipe[1])
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, readEnd, 0)
        posix_spawn_file_actions_addclose(&actions, writeEnd)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        posix_spawnattr_setpgroup(&attributes, 0)
        // The child starts with default signal handling and nothing blocked, whatever this process ignores.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGTERM)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        let argv: [UnsafeMutablePointer<CChar>?] = ["/bin/sh", "-c", command].map { (text: String) in strdup(text) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var spawnedPid: pid_t = 0
        let spawned = posix_spawn(&spawnedPid, "/bin/sh", &actions, &attributes, argv, envp)
        let pid = spawnedPid
        close(readEnd)
        guard spawned == 0 else {
            close(writeEnd)
            return .couldNotStart(String(cString: strerror(spawned)))
        }
        // Written on a thread of its own and closed: a command that does not read it cannot block us.
        let bytes = [UInt8](input)
        Thread.detachNewThread {
            signal(SIGPIPE, SIG_IGN)
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count) }
                if written <= 0 { break }
                offset += written
            }
            close(writeEnd)
        }
        let (ended, continuation) = AsyncStream<Int32>.makeStream()
        Thread.detachNewThread {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            continuation.yield(status)
            continuation.finish()
        }
        let stopped = OnceFlag()
        let timer = Task {
            try await Task.sleep(for: .seconds(timeout))
            guard stopped.claim() else { return }
            kill(-pid, SIGTERM)
            try await Task.sleep(for: .seconds(2))
            kill(-pid, SIGKILL)
        }
        var status: Int32 = 0
        for await value in ended { status = value }
        // A child the command left behind goes with it.
        kill(-pid, SIGKILL)
        timer.cancel()
        if !stopped.claim() { return .timedOut }
        let signalNumber = status & 0x7f
        return signalNumber == 0 ? .exited((status >> 8) & 0xff) : .killedBySignal(signalNumber)
    }
}
