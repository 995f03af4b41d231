import AppStoreServerAPI
import Foundation
import Testing

/// `iapdesk retention …` against the demo: Apple's rules checked before sending, writes confirmed
/// and ledgered, `--json` records, exit codes as the other commands.
extension CommandLineTests {
    static func pngFile(_ data: Data) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-retention-\(UUID().uuidString).png").path
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func imageUploadsAreCheckedBeforeAnythingIsSent() async throws {
        let cases: [(png: Data, size: String, message: String)] = [
            (RetentionImageCheck.samplePNG(width: 3840, height: 400, colorType: 6), "full", "The PNG has an alpha channel (RGB with alpha (RGBA))"),
            (RetentionImageCheck.samplePNG(width: 3840, height: 400, transparentColor: true), "full", "marks a colour as transparent (a tRNS chunk)"),
            (RetentionImageCheck.samplePNG(width: 1920, height: 400), "full", "The image is 1920×400 pixels; a full-size image must be exactly 3840 pixels wide."),
            (RetentionImageCheck.samplePNG(width: 3840, height: 100), "full", "a full-size image must be 160 to 2160 pixels high"),
            (RetentionImageCheck.samplePNG(width: 3840, height: 400), "bullet", "a bullet point image must be 1024×1024 pixels"),
            (Data("GIF89a".utf8), "full", "The file is not a PNG"),
        ]
        for (png, size, message) in cases {
            let result = try await run(["retention", "images", "upload", try Self.pngFile(png), "--size", size, "--demo", "--yes"])
            #expect(result.status == 64, "\(message): \(result.stderr)")
            #expect(result.stderr.contains("Not sent:"), "\(result.stderr)")
            #expect(result.stderr.contains(message), "\(result.stderr)")
            #expect(!result.stderr.contains("Request identifier"), "nothing reached the ledger or Apple")
        }
        let size = try await run(["retention", "images", "upload", try Self.pngFile(RetentionImageCheck.samplePNG(width: 1024, height: 1024)), "--size", "huge", "--demo"])
        #expect(size.status == 64)
        #expect(size.stderr.contains("--size must be full"))
    }

    @Test func performanceTestsSayWhatIsMissingAndAFailureExitsNonZero() async throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-cli-state-\(UUID().uuidString)").path
        let env = ["XDG_STATE_HOME": state]
        let noURL = try await run(["retention", "performance-test", "start", "2000000800000055", "--demo", "--yes"], environment: env)
        #expect(noURL.status == 3, "\(noURL.stderr)")
        #expect(noURL.stderr.contains("no realtime URL is set in Sandbox"))
        #expect(noURL.stderr.contains("iapdesk retention realtime-url set URL --environment sandbox"))
        #expect(!noURL.stderr.contains("Request identifier"), "nothing was sent")

        let badId = try await run(["retention", "performance-test", "result", "not-a-uuid", "--demo"], environment: env)
        #expect(badId.status == 64)
        #expect(badId.stderr.contains("REQUEST_ID not-a-uuid is not a UUID"))

        // Nothing listens on port 1: every request fails, and so does the test.
        let url = try await run(["retention", "realtime-url", "set", "https://127.0.0.1:1/realtime", "--environment", "sandbox", "--demo", "--yes"], environment: env)
        #expect(url.status == 0, "\(url.stderr)")
        let start = try await run(["retention", "performance-test", "start", "2000000800000055", "--demo", "--yes", "--json"], environment: env)
        #expect(start.status == 0, "\(start.stderr)")
        let started = try #require(try JSONSerialization.jsonObject(with: Data(start.stdout.utf8)) as? [String: Any])
        #expect(started["target"] as? String == "https://127.0.0.1:1/realtime")
        let requestId = try #require(started["requestId"] as? String)
        let failed = try await run(["retention", "performance-test", "result", requestId, "--demo"], environment: env)
        #expect(failed.status == 11, "\(failed.stderr)")
        #expect(failed.stdout.contains("Failed"))
        #expect(failed.stderr.contains("The performance test failed: 0 % answered in time, 95 % needed."))

        let consumable = try await run(["retention", "performance-test", "start", "2000000800000389", "--demo", "--yes"], environment: env)
        #expect(consumable.status == 4)
        #expect(consumable.stderr.contains("InvalidPerformanceTestRequestError (4000211)"))
        #expect(consumable.stderr.contains("auto-renewable subscription"))
    }

    @Test func retentionWritesAreConfirmedLedgeredAndSaidInJSON() async throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-cli-state-\(UUID().uuidString)").path
        let env = ["XDG_STATE_HOME": state]
        let imageId = UUID().lowercased
        let png = try Self.pngFile(RetentionImageCheck.samplePNG(width: 3840, height: 400))
        let unconfirmed = try await run(["retention", "images", "upload", png, "--size", "full", "--id", imageId, "--demo"], environment: env)
        #expect(unconfirmed.status == 9, "\(unconfirmed.stderr)")
        #expect(unconfirmed.stderr.contains("Add --yes"))

        let upload = try await run(["retention", "images", "upload", png, "--size", "full", "--id", imageId, "--demo", "--yes", "--json"], environment: env)
        #expect(upload.status == 0, "\(upload.stderr)")
        let uploaded = try #require(try JSONSerialization.jsonObject(with: Data(upload.stdout.utf8)) as? [String: Any])
        #expect(uploaded["action"] as? String == "upload-image")
        #expect(uploaded["imageIdentifier"] as? String == imageId)
        #expect(uploaded["environment"] as? String == "Production")
        let again = try await run(["retention", "images", "upload", png, "--size", "full", "--id", imageId, "--demo", "--yes"], environment: env)
        #expect(again.status == 4)
        #expect(again.stderr.contains("ImageAlreadyExistsError (4090000)"))

        let list = try await run(["retention", "images", "list", "--demo", "--json"], environment: env)
        let images = try #require((try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])?["images"] as? [[String: Any]])
        #expect(images.first?["imageIdentifier"] as? String == imageId)
        #expect(images.first?["imageSize"] as? String == "FULL_SIZE")
        #expect(images.first?["imageState"] as? String == "PENDING")

        let tooLong = try await run(["retention", "messages", "upload", "--header", String(repeating: "h", count: 67), "--body", "b", "--demo", "--yes"], environment: env)
        #expect(tooLong.status == 64)
        #expect(tooLong.stderr.contains("The header is 67 characters; Apple allows 66."))
        let messageId = UUID().lowercased
        let message = try await run([
            "retention", "messages", "upload", "--id", messageId, "--header", "Before you go", "--body", "Keep every trail.",
            "--image", imageId, "--alt-text", "A trail", "--header-position", "above-image", "--demo", "--yes",
        ], environment: env)
        #expect(message.status == 0, "\(message.stderr)")
        let pending = try await run(["retention", "default", "set", "com.example.monthly", "en-US", "--message", messageId, "--demo", "--yes"], environment: env)
        #expect(pending.status == 4)
        #expect(pending.stderr.contains("MessageNotApprovedError (4030017)"))
        let locale = try await run(["retention", "default", "get", "com.example.monthly", "english", "--demo"], environment: env)
        #expect(locale.status == 64)
        #expect(locale.stderr.contains("not a language and region"))

        let http = try await run(["retention", "realtime-url", "set", "http://example.com/r", "--demo", "--yes"], environment: env)
        #expect(http.status == 64)
        #expect(http.stderr.contains("Apple calls the realtime URL over https:// only"))
        let production = try await run(["retention", "realtime-url", "set", "https://example.com/r", "--demo", "--yes"], environment: env)
        #expect(production.status == 4)
        #expect(production.stderr.contains("ForbiddenNoPassingTestError (4030026)"))
        let sandboxURL = try await run(["retention", "realtime-url", "set", "https://localhost/demo/realtime", "--environment", "sandbox", "--demo", "--yes"], environment: env)
        #expect(sandboxURL.status == 0, "\(sandboxURL.stderr)")
        let start = try await run(["retention", "performance-test", "start", "2000000800000055", "--demo", "--yes", "--json"], environment: env)
        #expect(start.status == 0, "\(start.stderr)")
        let requestId = try #require((try JSONSerialization.jsonObject(with: Data(start.stdout.utf8)) as? [String: Any])?["requestId"] as? String)
        let result = try await run(["retention", "performance-test", "result", requestId, "--demo", "--json"], environment: env)
        #expect(result.status == 0, "\(result.stderr)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(answer["result"] as? String == "PASS")
        #expect(answer["successRate"] as? Int == 100)
        let shown = try await run(["retention", "performance-test", "result", requestId, "--demo"], environment: env)
        #expect(shown.stdout.contains("https://localhost/demo/realtime (the demo's own endpoint, on this machine)"))
        #expect(!shown.stdout.contains("average 0 ms"))
        let set = try await run(["retention", "realtime-url", "set", "https://example.com/r", "--demo", "--yes"], environment: env)
        #expect(set.status == 0, "\(set.stderr)")

        // Every write is in the ledger, the image by its size and digest rather than its bytes.
        let audit = try await run(["audit", "--demo", "--json"], environment: env)
        #expect(audit.stdout.contains("retention image \(imageId)"))
        #expect(audit.stdout.contains("image/png"))
        #expect(audit.stdout.contains("performance test of the Sandbox realtime URL"))
        #expect(!audit.stdout.contains("IHDR"))
    }
}
