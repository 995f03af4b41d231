import AppStoreServerAPI
import ArgumentParser
import Console
import DemoServer
import Foundation

struct DecodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode and verify any App Store JWS: notification, transaction, renewal info or app transaction.",
        discussion: """
            Reads the JWS from the argument, or from standard input with - or no argument. A notification's \
            nested transaction, renewal info and app transaction are decoded and verified one by one. The \
            certificate chain and signature are always checked; bundle ID, environment and app Apple ID are \
            checked when given (profile, flags or environment variables), each on its own. Every verdict lists \
            what was checked and what was not.
            """)

    @Argument(help: "The JWS, or - to read standard input.") var jws: String?
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await runReporting {
            let text = try readInput()
            var demo: DemoServer?
            let verifier: SignedDataVerifier
            if global.demo {
                let server = try await DemoServer.start()
                demo = server
                verifier = try server.makeVerifier()
            } else {
                verifier = try makeVerifier()
            }
            let decoded = await verifier.verifyAny(text)
            await demo?.stop()
            try report(decoded)
        }
    }

    func readInput() throws -> String {
        var text = jws ?? "-"
        if text == "-" {
            let data = FileHandle.standardInput.readDataToEndOfFile()
            text = String(decoding: data.prefix(4 << 20), as: UTF8.self)
        }
        text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        // Accept a pasted {"signedPayload": "..."} body as well as the bare JWS.
        if text.hasPrefix("{"), let tree = try? JSONValue.parse(Data(text.utf8)), let inner = tree["signedPayload"]?.stringValue {
            text = inner
        }
        guard !text.isEmpty else { throw CLIError("Nothing to decode: pass a JWS or pipe one in.", status: .usage) }
        return text
    }

    /// A verifier expecting whatever the profile and flags give: each of bundle ID, environment and
    /// app Apple ID is checked when given, and reported as not given otherwise.
    func makeVerifier() throws -> SignedDataVerifier {
        let loader = ConfigLoader()
        let file = try loader.loadFile(path: global.config)
        let profile = try loader.resolve(file: file, name: global.profile, flags: try global.overrides())
        return try SignedDataVerifier(
            bundleId: profile.bundleId, appAppleId: profile.appAppleId, environment: profile.environment,
            additionalRoots: try Session.rootCertificates(profile), requiresAppAppleIdInProduction: false)
    }

    func report(_ decoded: DecodedSignedData) throws {
        let printer = Printer(json: global.json)
        if case .unrecognised(let reason) = decoded {
            throw CLIError("Not App Store signed data: \(reason)", status: .usage)
        }
        let parts = decoded.parts
        printer.emit([
            "kind": decoded.kindName,
            "parts": parts.map { part -> [String: Any?] in
                ["part": part.path.isEmpty ? part.kind : part.path, "kind": part.kind,
                 "verification": Records.verification(part.status, checks: part.checks),
                 "payload": part.rawPayload.flatMap { try? JSONSerialization.jsonObject(with: $0) }]
            },
        ])
        for part in parts {
            printer.text("== \(part.path.isEmpty ? part.kind : "\(part.path) (\(part.kind))")\n\(part.verdict)")
            if let raw = part.rawPayload, let tree = try? JSONValue.parse(raw) { printer.text(tree.rendered(indent: "  ")) }
            printer.text("")
        }
        try requireVerified(parts.map(\.status))
    }
}
