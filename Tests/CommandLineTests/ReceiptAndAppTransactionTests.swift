import Foundation
import Testing

/// `iapdesk receipt` on Apple's Xcode receipts and on bad input, and `iapdesk app-transaction`
/// against the demo.
extension CommandLineTests {
    static func xcodeFixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("AppStoreServerAPITests/Fixtures/apple/xcode/\(name)").path
    }

    @Test func receiptPrintsItsPurchasesWhatIsNotCheckedAndTheLookupToRun() async throws {
        let file = Self.xcodeFixture("xcode-app-receipt-with-transaction")
        let table = try await run(["receipt", file])
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdout.contains("Bundle ID     com.example.naturelab.backyardbirds.example"))
        #expect(table.stdout.contains("1 in-app purchase, newest first:"))
        #expect(table.stdout.contains("0            -         pass.premium  2023-10-19 01:45 UTC  2023-11-19 01:45 UTC  -          1"))
        #expect(table.stdout.contains("Read, not verified: the PKCS#7 signature, Apple's certificate and the device hash are not checked"))
        #expect(table.stdout.contains("Next:\n  iapdesk lookup 0\n"))
        // Standard input, and --json with the dates as pairs.
        let base64 = try String(contentsOfFile: file, encoding: .utf8)
        let json = try await run(["receipt", "-", "--json", "--demo"], stdin: base64)
        #expect(json.status == 0, "\(json.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(document["verified"] as? Bool == false)
        #expect((document["notChecked"] as? [String])?.first == "PKCS#7 signature")
        #expect(document["receiptType"] as? String == "Xcode")
        #expect(document["originalTransactionIds"] as? [String] == ["0"])
        #expect(document["next"] as? [String] == ["iapdesk lookup 0 --demo"])
        let purchase = try #require((document["inAppPurchases"] as? [[String: Any]])?.first)
        #expect(purchase["transactionId"] as? String == "0")
        #expect(purchase["purchaseDate"] as? String == "2023-10-19T01:45:36.000Z")
        #expect(purchase["purchaseDateMs"] as? Int == 1_697_679_936_000)
        let empty = try await run(["receipt", Self.xcodeFixture("xcode-app-receipt-empty")])
        #expect(empty.status == 0)
        #expect(empty.stdout.contains("No in-app purchases in this receipt"))
        #expect(!empty.stdout.contains("Next:"))
    }

    @Test func receiptRefusesEachKindOfBadInputWithItsReason() async throws {
        let base64 = try String(contentsOfFile: Self.xcodeFixture("xcode-app-receipt-with-transaction"), encoding: .utf8)
        let cases: [(input: String, message: String)] = [
            ("", "error: The receipt is empty."),
            ("MII*", "error: This is not a base64 receipt: \"*\" at character 4 cannot be base64"),
            ("aGVsbG8gd29ybGQ=", "error: This is not a PKCS#7 receipt container: its base64 decodes to 11 bytes starting 68 65 6C 6C"),
            (String(base64.prefix(500)), "error: The receipt is cut short: its 375 bytes end inside a field"),
            (try String(contentsOfFile: Self.xcodeFixture("xcode-signed-transaction"), encoding: .utf8), "it is a JWS"),
        ]
        for (input, message) in cases {
            let result = try await run(["receipt", "-"], stdin: input)
            #expect(result.status == 64, "\(input.prefix(20)): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        let missing = try await run(["receipt", "/nonexistent/receipt"])
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("Cannot read the receipt /nonexistent/receipt: there is no such file."))
    }

    @Test func appTransactionShowsTheDemoCustomersDownloadAndSaysWhenThereIsNone() async throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-apptx-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        let shown = try await run(["app-transaction", "--demo", "2000000400000044"], environment: ["XDG_STATE_HOME": state])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains("App transaction of 2000000400000044, found in Production"))
        #expect(shown.stdout.contains("Verified: signature and chain: checked"))
        #expect(shown.stdout.contains("Original app version       1.0"))
        #expect(shown.stdout.contains("Original platform          iOS"))
        let json = try await run(["app-transaction", "--demo", "--json", "2000000400000044"], environment: ["XDG_STATE_HOME": state])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let appTransactionId = try #require(document["appTransactionId"] as? String)
        #expect(document["query"] as? String == "2000000400000044")
        #expect(document["foundIn"] as? String == "Production")
        #expect(document["bundleId"] as? String == "com.iapdesk.demo")
        #expect((document["verification"] as? [String: Any])?["status"] as? String == "verified")
        #expect(document["originalPurchaseDateMs"] is Int && document["originalPurchaseDate"] is String)
        #expect((document["signedAppTransactionInfo"] as? String)?.split(separator: ".").count == 3)
        #expect(shown.stdout.contains("The customer's purchases: iapdesk lookup \(appTransactionId) --demo"))
        // The app transaction ID itself is an ID Apple takes.
        let byOwnID = try await run(["app-transaction", "--demo", appTransactionId], environment: ["XDG_STATE_HOME": state])
        #expect(byOwnID.status == 0, "\(byOwnID.stderr)")

        // The demo's season-pass customer never downloaded the app on this account: 4040019.
        let none = try await run(["app-transaction", "--demo", "2000000400002411"], environment: ["XDG_STATE_HOME": state])
        #expect(none.status == 2)
        #expect(none.stderr.contains("No app transaction exists for the customer of 2000000400002411"))
        #expect(none.stderr.contains("4040019 AppTransactionDoesNotExistError"))
        #expect(none.stderr.contains("iapdesk lookup 2000000400002411 --demo"))
        let unknown = try await run(["app-transaction", "--demo", "2000000499999999"], environment: ["XDG_STATE_HOME": state])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("TransactionIdNotFoundError (4040010)"))
        let bad = try await run(["app-transaction", "--demo", "12ab"])
        #expect(bad.status == 64)
    }
}
