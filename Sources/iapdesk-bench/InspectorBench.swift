import AppStoreServerAPI
import ArgumentParser
import Console
import Crypto
import DeskCore
import Foundation
import TerminalUI

/// The Inspector with a large paste: the keys of a bracketed paste decoded, reduced and drawn
/// (`inspector_paste_*`; `inspector_typed_*` without the paste markers, one key per character),
/// then the pasted text verified and its report drawn (`inspector_verify_*`).
enum InspectorBench {
    struct Input {
        let text: String
        let verifier: SignedDataVerifier
    }


    static func renewal(_ authority: SigningCertificateAuthority) -> String {
        authority.signer.sign(json: Data("""
            {"originalTransactionId":"2000000100000000","autoRenewProductId":"com.example.pro.monthly","productId":"com.example.pro.monthly",\
            "autoRenewStatus":1,"signedDate":1750000000123,"environment":"Sandbox","renewalDate":1752592000000}
            """.utf8))
    }

    /// A notification JWS of about `bytes` bytes with a signed transaction and renewal info inside,
    /// padded with a long field, signed by a fresh Apple-shaped chain.
    static func notification(bytes: Int) throws -> Input {
        let (authority, verifier) = try BenchSigning.authority()
        let transaction = authority.signer.sign(json: Bench.transaction(index: 1))
        let renewal = renewal(authority)
        func body(padding: Int) -> String {
            """
            {"notificationType":"DID_RENEW","notificationUUID":"00000000-0000-4000-8000-000000000001","version":"2.0",\
            "signedDate":1750000000123,"padding":"\(String(repeating: "x", count: padding))","data":{"bundleId":"com.example",\
            "environment":"Sandbox","status":1,"signedTransactionInfo":"\(transaction)","signedRenewalInfo":"\(renewal)"}}
            """
        }
        let unpadded = authority.signer.sign(json: Data(body(padding: 0).utf8)).utf8.count
        let padding = max(0, (bytes - unpadded) * 3 / 4)
        return Input(text: authority.signer.sign(json: Data(body(padding: padding).utf8)), verifier: verifier)
    }

    /// A Get All Subscription Statuses answer of at least `bytes` bytes: subscriptions, each with a
    /// signed transaction and renewal info.
    static func statusResponse(bytes: Int) throws -> Input {
        let (authority, verifier) = try BenchSigning.authority()
        var items: [String] = []
        var size = 0
        while size < bytes {
            let transaction = authority.signer.sign(json: Bench.transaction(index: items.count))
            let item = #"{"originalTransactionId":"\#(2_000_000_100_000_000 + items.count)","status":1,"signedTransactionInfo":"\#(transaction)","signedRenewalInfo":"\#(renewal(authority))"}"#
            size += item.utf8.count
            items.append(item)
        }
        let body = #"{"environment":"Sandbox","bundleId":"com.example","data":[{"subscriptionGroupIdentifier":"21345678","lastTransactions":[\#(items.joined(separator: ","))]}]}"#
        return Input(text: body, verifier: verifier)
    }

    static func state() -> ConsoleState {
        var state = ConsoleState(profileName: "bench", environment: .sandbox, isDemo: true, bundleId: "com.example", readOnly: false, themeName: "default")
        state.pane = .inspector
        state.focus = .paneInput
        return state
    }

    /// Median milliseconds of `runs` pastes of `input` into an empty Inspector, each ending with a frame.
    /// - Parameter bracketed: false to send the text as the terminal sends it without bracketed paste.
    static func measurePaste(_ input: Input, bracketed: Bool = true, runs: Int = 15) -> Double {
        let theme = (try? ThemeCatalog(userDirectory: nil).load("default")) ?? .fallback
        let raw: [RawKey] = (bracketed ? "\u{1B}[200~" + input.text + "\u{1B}[201~" : input.text).unicodeScalars.map { .scalar($0) }
        var timings: [Double] = []
        for _ in 0..<runs {
            var state = state()
            let terminal = Terminal(backend: HeadlessBackend(width: 120, height: 36))
            terminal.draw { area, buffer in ConsoleView.render(state, theme: theme, area: area, buffer: &buffer) }
            let start = ContinuousClock.now
            // The terminal hands over at most 4096 keys per read.
            var decoder = KeyDecoder()
            var offset = 0
            while offset < raw.count {
                let end = min(offset + 4096, raw.count)
                for key in decoder.feed(Array(raw[offset..<end])) {
                    _ = ConsoleReducer.reduce(&state, .key(key))
                }
                offset = end
            }
            terminal.draw { area, buffer in ConsoleView.render(state, theme: theme, area: area, buffer: &buffer) }
            timings.append((ContinuousClock.now - start).seconds * 1000)
        }
        return median(timings)
    }

    /// Median milliseconds from a paste's verification starting to the frame showing its report.
    static func measureVerify(_ input: Input, runs: Int = 15) async throws -> Double {
        // The Inspector's task runs with the console's services; only the verifier is used.
        let client = try AppStoreServerClient(
            credentials: Credentials(issuerId: "57246542-96fe-1a63-e053-0824d011072a", keyId: "BENCHKEY01", bundleId: "com.example",
                                     signingKey: SigningKey(P256.Signing.PrivateKey())),
            environment: .sandbox)
        let services = DeskServices(client: client, verifier: input.verifier)
        let theme = (try? ThemeCatalog(userDirectory: nil).load("default")) ?? .fallback
        var timings: [Double] = []
        for _ in 0..<runs {
            var state = state()
            let effects = ConsoleReducer.reduce(&state, .key(.paste(input.text)))
            let terminal = Terminal(backend: HeadlessBackend(width: 120, height: 36))
            terminal.draw { area, buffer in ConsoleView.render(state, theme: theme, area: area, buffer: &buffer) }
            let start = ContinuousClock.now
            for effect in effects {
                guard case .task(let task) = effect else { continue }
                guard let report = await task.work(services, { _ in }) else { continue }
                _ = ConsoleReducer.reduce(&state, .answer(request: task.request, report))
            }
            terminal.draw { area, buffer in ConsoleView.render(state, theme: theme, area: area, buffer: &buffer) }
            timings.append((ContinuousClock.now - start).seconds * 1000)
        }
        return median(timings)
    }

    /// Figures are only worth having for input that verifies.
    static func requireVerified(_ input: Input, parts: Int) async throws {
        let report = await input.verifier.inspect(input.text)
        guard report.parts.count == parts, report.parts.allSatisfy(\.status.isVerified) else {
            throw ValidationError("the Inspector benchmark input does not verify: \(report.parts.map(\.verdict))")
        }
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }

    /// Figures at two sizes, so that growth faster than the size shows at a glance.
    static func run(sizes: [Int] = [16, 64]) async throws {
        for kilobytes in sizes {
            let input = try notification(bytes: kilobytes * 1024)
            try await requireVerified(input, parts: 3)
            print("inspector_paste_\(kilobytes)k: \(String(format: "%.2f", measurePaste(input))) ms")
            // A terminal without bracketed paste sends the text as typed keys.
            print("inspector_typed_\(kilobytes)k: \(String(format: "%.2f", measurePaste(input, bracketed: false, runs: 5))) ms")
            print("inspector_verify_\(kilobytes)k: \(String(format: "%.2f", try await measureVerify(input))) ms")
            let response = try statusResponse(bytes: kilobytes * 1024)
            try await requireVerified(response, parts: response.text.components(separatedBy: "signed").count - 1)
            print("inspector_verify_response_\(kilobytes)k: \(String(format: "%.2f", try await measureVerify(response))) ms")
        }
    }
}
