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
            nested transaction, renewal info and app transaction are decoded and verified one by one. Bundle ID, \
            environment and app Apple ID are checked against the profile when one is configured; otherwise \
            only the certificate chain and signature are checked.
            """)

    @Argument(help: "The JWS, or - to read standard input.") var jws: String?
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await runReporting {
            let text = try readInput()
            var demo: DemoServer?
            let verifier: SignedDataVerifier
            var note: String?
            if global.demo {
                let server = try await DemoServer.start()
                demo = server
                verifier = try server.makeVerifier()
            } else {
                (verifier, note) = try makeVerifier(for: text)
            }
            let decoded = await verifier.verifyAny(text)
            await demo?.stop()
            try report(decoded, note: note)
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

    /// The profile's verifier, or one that checks chain and signature and takes the content's own IDs.
    func makeVerifier(for text: String) throws -> (SignedDataVerifier, String?) {
        let loader = ConfigLoader()
        let file = try loader.loadFile(path: global.config)
        let profile = try loader.resolve(file: file, name: global.profile, flags: try global.overrides())
        let roots = try Session.rootCertificates(profile)
        if let bundleId = profile.bundleId, let environment = profile.environment {
            return (try SignedDataVerifier(bundleId: bundleId, appAppleId: profile.appAppleId, environment: environment, additionalRoots: roots), nil)
        }
        let tree = SignedDataInspector.payloadTree(text)
        let identity = tree?["data"] ?? tree?["summary"] ?? tree?["appData"] ?? tree
        let bundleId = identity?["bundleId"]?.stringValue ?? ""
        let environmentText = identity?["environment"]?.stringValue ?? identity?["receiptType"]?.stringValue ?? "Production"
        let environment = AppStoreEnvironment(environmentText)
        var appAppleId: Int64?
        if case .number(let digits)? = identity?["appAppleId"] { appAppleId = Int64(digits) }
        let verifier = try SignedDataVerifier(
            bundleId: bundleId, appAppleId: appAppleId ?? 0, environment: environment, additionalRoots: roots)
        return (verifier, "No profile: bundle ID, environment and app Apple ID were taken from the payload, not checked; chain and signature were checked.")
    }

    func report(_ decoded: DecodedSignedData, note: String?) throws {
        let printer = Printer(json: global.json)
        var sections: [(String, VerificationStatus, Data?)] = []
        switch decoded {
        case .unrecognised(let reason):
            throw CLIError("Not App Store signed data: \(reason)", status: .usage)
        case .notification(let n):
            sections.append(("notification", n.notification.status, n.notification.rawPayload))
            if let t = n.transaction { sections.append(("data.signedTransactionInfo", t.status, t.rawPayload)) }
            if let r = n.renewalInfo { sections.append(("data.signedRenewalInfo", r.status, r.rawPayload)) }
            if let a = n.appTransaction { sections.append(("appData.signedAppTransactionInfo", a.status, a.rawPayload)) }
        case .transaction(let t): sections.append(("transaction", t.status, t.rawPayload))
        case .renewalInfo(let r): sections.append(("renewal info", r.status, r.rawPayload))
        case .appTransaction(let a): sections.append(("app transaction", a.status, a.rawPayload))
        }
        printer.emit([
            "kind": decoded.kindName, "note": note,
            "parts": sections.map { name, status, raw -> [String: Any?] in
                ["part": name, "verification": Records.verification(status),
                 "payload": raw.flatMap { try? JSONSerialization.jsonObject(with: $0) }]
            },
        ])
        for (name, status, raw) in sections {
            printer.text("== \(name)\n\(status.summary)")
            if let raw, let tree = try? JSONValue.parse(raw) { printer.text(tree.rendered(indent: "  ")) }
            printer.text("")
        }
        if let note { printer.text("Note: \(note)") }
        try requireVerified(sections.map(\.1))
    }
}
