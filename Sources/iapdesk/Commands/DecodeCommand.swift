import AppStoreServerAPI
import ArgumentParser
import DemoServer
import DeskCore
import Foundation

struct DecodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode and verify App Store signed data: a JWS, a webhook body or any JSON holding signed fields.",
        discussion: """
            Reads the argument, or standard input with - or no argument: a bare JWS (notification, transaction, \
            renewal info, app transaction), a webhook body {"signedPayload": ...}, or any JSON with signed fields \
            (Get All Subscription Statuses, transaction history, notification history...). Every signed string \
            found is verified and reported with its JSON path; a notification's nested payloads are verified one \
            by one. The certificate chain and signature are always checked; bundle ID, environment and app Apple ID \
            are checked when given (profile, flags or environment variables), each on its own. Every verdict lists \
            what was checked and what was not.
            """)

    @Argument(help: "The JWS or JSON, or - to read standard input.") var input: String?
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await runReporting {
            let text = try readInput()
            var demo: Session?
            let verifier: SignedDataVerifier
            if global.demo {
                // The demo's kept chain, which signed what every --demo command showed or received.
                let session = try await Session.openDemo(environment: global.environment)
                demo = session
                verifier = try session.demo!.makeVerifier()
            } else {
                verifier = try makeVerifier()
            }
            let report = await verifier.inspect(text)
            await demo?.close()
            try show(report)
        }
    }

    func readInput() throws -> String {
        var text = input ?? "-"
        if text == "-" {
            let data = FileHandle.standardInput.readDataToEndOfFile()
            text = String(decoding: data.prefix(4 << 20), as: UTF8.self)
        }
        guard text.utf8.contains(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }) else {
            throw CLIError("Nothing to decode: pass a JWS or JSON, or pipe one in.", status: .usage)
        }
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

    func show(_ report: InspectionReport) throws {
        if let problem = report.problem { throw CLIError("Nothing to verify: \(problem)", status: .usage) }
        if report.isUnrecognised, case .unrecognised(let reason) = report.items.first?.decoded {
            throw CLIError("Not App Store signed data: \(reason)", status: .usage)
        }
        let printer = Printer(json: global.json)
        let parts = report.parts
        printer.emit(DecodeOutput(kind: report.items.count == 1 ? report.items[0].decoded.kindName : "several", parts: parts.map(DecodeOutput.Part.init)))
        for part in parts {
            printer.text("== \(part.kind) at \(part.path)\n\(part.verdict)")
            if let raw = part.rawPayload, let tree = try? JSONValue.parse(raw) { printer.text(tree.rendered(indent: "  ")) }
            printer.text("")
        }
        try requireVerified(parts.map(\.status))
    }
}

/// `decode --json`: each signed part found, its verification, and its payload as it was signed.
struct DecodeOutput: Encodable {
    struct Part: Encodable {
        var part: String
        var kind: String
        var verification: VerificationRecord
        var payload: JSONPayload?

        init(_ part: VerifiedPart) {
            (self.part, kind) = (part.path, part.kind)
            verification = VerificationRecord(part.status, checks: part.checks)
            payload = part.rawPayload.flatMap { try? JSONValue.parse($0) }.map(JSONPayload.init)
        }
    }

    var kind: String
    var parts: [Part]
}

/// Any JSON, written again as it was read: numbers as integers when they are whole and fit, nulls kept.
struct JSONPayload: Encodable {
    let value: JSONValue

    init(_ value: JSONValue) { self.value = value }

    private struct Key: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        switch value {
        case .object(let members):
            var container = encoder.container(keyedBy: Key.self)
            for member in members { try container.encode(JSONPayload(member.value), forKey: Key(stringValue: member.key)) }
        case .array(let items):
            var container = encoder.unkeyedContainer()
            for item in items { try container.encode(JSONPayload(item)) }
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let flag):
            var container = encoder.singleValueContainer()
            try container.encode(flag)
        case .string(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .number(let text):
            var container = encoder.singleValueContainer()
            if let whole = Int64(text) {
                try container.encode(whole)
            } else if let whole = UInt64(text) {
                try container.encode(whole)
            } else {
                try container.encode(Double(text) ?? 0)
            }
        }
    }
}
