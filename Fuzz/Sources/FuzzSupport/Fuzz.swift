import CLibFuzzer
import Foundation

/// Starts libFuzzer with a Swift closure as the function it calls for every input.
///
/// Fuzz targets are ordinary executables with `@main`: SwiftPM renames their `main`, so libFuzzer's
/// own `main` cannot be used; `LLVMFuzzerRunDriver` takes its place.
public enum Fuzz {
    nonisolated(unsafe) private static var testOneInput: ((UnsafeRawBufferPointer) -> Void)?

    public static func run(_ test: @escaping (UnsafeRawBufferPointer) -> Void) -> Never {
        testOneInput = test
        // Swift's backtracer claims the crash signals at start-up, and libFuzzer leaves claimed signals
        // alone, so a crash would write no input file. Give them back before libFuzzer sets its own.
        for signal in [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGABRT, SIGFPE] {
            _ = Foundation.signal(signal, SIG_DFL)
        }
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput))
    }

    static func testOne(_ data: UnsafePointer<UInt8>?, _ size: Int) {
        testOneInput?(UnsafeRawBufferPointer(start: data, count: size))
    }
}

/// libFuzzer's runtime is linked whole, and its unused `main` still refers to this symbol.
@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    Fuzz.testOne(data, size)
    return 0
}

/// Stops the run with `message` when an invariant does not hold; libFuzzer then saves the input.
public func invariant(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) {
    if !condition() { fatalError("invariant broken: \(message())", file: file, line: line) }
}
