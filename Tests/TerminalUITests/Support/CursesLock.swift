import Foundation

/// ncurses and terminfo keep their state in globals, which two tests running at once would share
/// (a crash in libtinfo): every test that reaches them takes its turn here.
enum CursesLock {
    private static let lock = NSLock()

    static func run<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
