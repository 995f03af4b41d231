import Foundation

/// Files copied from Apple's App Store Server Library tests (MIT, see Fixtures/apple/LICENSE.txt).
enum Fixture {
    static func url(_ path: String) -> URL {
        Bundle.module.resourceURL!.appendingPathComponent("Fixtures").appendingPathComponent(path)
    }

    static func data(_ path: String) -> Data {
        try! Data(contentsOf: url(path))
    }

    static func text(_ path: String) -> String {
        String(decoding: data(path), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func model(_ name: String) -> Data { data("apple/models/\(name).json") }
}
