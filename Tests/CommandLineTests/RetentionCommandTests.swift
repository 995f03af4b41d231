import AppStoreServerAPI
import DemoServer
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

    /// A message uploaded by a demo server of the test's own, with no review wait, into the demo
    /// state the commands then read: it is approved when they start.
    static func approvedMessage(inDemoStateOf state: String, header: String = "Stay", image: UUID? = nil) async throws -> String {
        var configuration = DemoServer.Configuration()
        configuration.stateFolder = state + "/iapdesk/demo"
        configuration.retention.reviewDelay = 0
        let server = try await DemoServer.start(configuration)
        let client = try server.makeClient(environment: .production, retryPolicy: .none)
        let messageId = UUID()
        try await client.uploadMessage(messageIdentifier: messageId, request: .init(
            header: header, body: "Keep it.", image: image.map { UploadMessageImage(imageIdentifier: $0, altText: "A trail") }))
        await server.stop()
        return messageId.lowercased
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
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-missing-\(UUID().uuidString).png").path
        let absent = try await run(["retention", "images", "upload", missing, "--size", "full", "--demo", "--yes"])
        #expect(absent.status == 64)
        #expect(absent.stderr.contains("Not sent: \(missing) does not exist.\n"), "\(absent.stderr)")
        let folder = try await run(["retention", "images", "upload", FileManager.default.temporaryDirectory.path, "--size", "full", "--demo", "--yes"])
        #expect(folder.status == 64)
        #expect(folder.stderr.contains("is a folder, not a PNG file."), "\(folder.stderr)")
        #expect(!folder.stderr.contains("NSCocoaErrorDomain"))
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

    @Test func defaultMessagesAreListedWithLocalesWrittenOneWay() async throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-cli-state-\(UUID().uuidString)").path
        let env = ["XDG_STATE_HOME": state]
        let messageId = try await Self.approvedMessage(inDemoStateOf: state)
        let nope = try await run(["retention", "default", "set", "com.nope.product", "fr-FR", "--message", messageId, "--demo", "--yes"], environment: env)
        #expect(nope.status == 4)
        #expect(nope.stderr.contains("InvalidProductIdError (4000023)"))
        let set = try await run(["retention", "default", "set", "com.iapdesk.demo.pro.monthly", "EN-us", "--message", messageId, "--demo", "--yes"], environment: env)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout.contains("Default message of com.iapdesk.demo.pro.monthly in en-US is now \(messageId)"))
        let get = try await run(["retention", "default", "get", "com.iapdesk.demo.pro.monthly", "en-us", "--demo"], environment: env)
        #expect(get.status == 0, "\(get.stderr)")
        #expect(get.stdout.contains("in en-US: \(messageId)"))

        let list = try await run(["retention", "default", "list", "--demo"], environment: env)
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.contains("Asked 5 products (the demo's auto-renewable subscriptions) in en-US (the default"))
        #expect(list.stdout.contains("com.iapdesk.demo.pro.monthly      en-US   \(messageId)"))
        #expect(list.stdout.contains("com.iapdesk.demo.pro.yearly       en-US   none"))
        let named = try await run([
            "retention", "default", "list", "--product", "com.iapdesk.demo.pro.monthly", "--locale", "en-us", "--locale", "fr-FR", "--demo", "--json",
        ], environment: env)
        #expect(named.status == 0, "\(named.stderr)")
        let output = try #require(try JSONSerialization.jsonObject(with: Data(named.stdout.utf8)) as? [String: Any])
        #expect(output["productsFrom"] as? String == "as given")
        let defaults = try #require(output["defaults"] as? [[String: Any]])
        #expect(defaults.map { $0["locale"] as? String } == ["en-US", "fr-FR"])
        #expect(defaults.map { $0["messageIdentifier"] as? String } == [messageId, nil])
        let badLocale = try await run(["retention", "default", "list", "--locale", "english", "--demo"], environment: env)
        #expect(badLocale.status == 64)
        #expect(badLocale.stderr.contains("--locale english is not a language and region"))
    }

    @Test func messagesAreShownWithWhatWasUploadedAndWhatDependsOnThem() async throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-cli-state-\(UUID().uuidString)").path
        let env = ["XDG_STATE_HOME": state]
        // Uploaded elsewhere (not in this machine's ledger), and approved.
        let elsewhere = try await Self.approvedMessage(inDemoStateOf: state)
        let imageId = UUID().lowercased, messageId = UUID().lowercased
        let png = try Self.pngFile(RetentionImageCheck.samplePNG(width: 3840, height: 400))
        #expect(try await run(["retention", "images", "upload", png, "--size", "full", "--id", imageId, "--demo", "--yes"], environment: env).status == 0)
        let upload = try await run([
            "retention", "messages", "upload", "--id", messageId, "--header", "Before you go", "--body", "Keep every trail.",
            "--image", imageId, "--alt-text", "A trail", "--demo", "--yes",
        ], environment: env)
        #expect(upload.status == 0, "\(upload.stderr)")

        let list = try await run(["retention", "messages", "list", "--demo"], environment: env)
        #expect(list.stdout.contains("HEADER (FROM THE LEDGER)"))
        #expect(list.stdout.contains("\(messageId)  In review  Before you go             1 image"))
        #expect(list.stdout.contains("\(elsewhere)  Approved   -"))
        #expect(list.stdout.contains("headers are from this machine's audit ledger (- : not uploaded from here)"))
        let json = try await run(["retention", "messages", "list", "--demo", "--json"], environment: env)
        let messages = try #require((try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])?["messages"] as? [[String: Any]])
        let mine = try #require(messages.first { $0["messageIdentifier"] as? String == messageId }?["fromLedger"] as? [String: Any])
        #expect(mine["header"] as? String == "Before you go")
        #expect(mine["body"] as? String == "Keep every trail.")
        #expect(mine["imageIdentifier"] as? String == imageId)
        #expect(messages.first { $0["messageIdentifier"] as? String == elsewhere }?["fromLedger"] == nil)

        let inUse = try await run(["retention", "images", "delete", imageId, "--demo", "--yes"], environment: env)
        #expect(inUse.status == 4)
        #expect(inUse.stderr.contains("ImageInUseError (4030019)"))
        #expect(inUse.stderr.contains("Used by message \(messageId) \"Before you go\": delete it first"))

        for (product, locale) in [("com.iapdesk.demo.pro.monthly", "en-US"), ("com.iapdesk.demo.pro.yearly", "fr-FR")] {
            let set = try await run(["retention", "default", "set", product, locale, "--message", elsewhere, "--demo", "--yes"], environment: env)
            #expect(set.status == 0, "\(set.stderr)")
        }
        let delete = try await run(["retention", "messages", "delete", elsewhere, "--demo", "--yes"], environment: env)
        #expect(delete.status == 0, "\(delete.stderr)")
        #expect(delete.stdout.contains("Removed with it, as the default message of: com.iapdesk.demo.pro.monthly in en-US, com.iapdesk.demo.pro.yearly in fr-FR."))
        let gone = try await run(["retention", "default", "get", "com.iapdesk.demo.pro.monthly", "en-US", "--demo"], environment: env)
        #expect(gone.status == 2)
        let plain = try await run(["retention", "messages", "delete", messageId, "--demo", "--yes"], environment: env)
        #expect(plain.stdout.contains("No default message named it."))
    }

    @Test func aMessagesImagesAreLookedUpBeforeItIsSent() async throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("iapdesk-cli-state-\(UUID().uuidString)").path
        let env = ["XDG_STATE_HOME": state]
        let banner = UUID().lowercased, missing = UUID().lowercased
        let png = try Self.pngFile(RetentionImageCheck.samplePNG(width: 3840, height: 400))
        #expect(try await run(["retention", "images", "upload", png, "--size", "full", "--id", banner, "--demo", "--yes"], environment: env).status == 0)
        let unknown = try await run([
            "retention", "messages", "upload", "--header", "h", "--body", "b", "--image", missing, "--alt-text", "a", "--demo", "--yes",
        ], environment: env)
        #expect(unknown.status == 2, "\(unknown.stderr)")
        #expect(unknown.stderr.contains("Not sent: the message's image, \(missing), does not exist in Demo (Production)"))
        #expect(!unknown.stderr.contains("Request identifier"), "nothing was sent")
        let misplaced = try await run([
            "retention", "messages", "upload", "--header", "h", "--body", "b", "--bullet", "Maps", "--bullet-image", banner, "--bullet-alt-text", "a",
            "--demo", "--yes",
        ], environment: env)
        #expect(misplaced.status == 64, "\(misplaced.stderr)")
        #expect(misplaced.stderr.contains("Not sent: the image of bullet point 1, \(banner), is a full size image; this place takes a bullet point one."))
        let list = try await run(["retention", "messages", "list", "--demo"], environment: env)
        #expect(list.stdout.contains("No messages"))
    }

    @Test func aMistypedSubcommandIsNamed() async throws {
        let image = try await run(["retention", "image", "list", "--demo"])
        #expect(image.status == 64)
        #expect(image.stderr.contains("Unknown subcommand 'image' of iapdesk retention, which has images, messages, default, realtime-url, performance-test. Did you mean 'iapdesk retention images'?"))
        #expect(!image.stderr.contains("Unknown option"))
        let missing = try await run(["retention", "default", "--demo"])
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("iapdesk retention default needs a subcommand before --demo: list, get, set, delete."))
        let typo = try await run(["retention", "default", "lsit", "--demo"])
        #expect(typo.stderr.contains("Did you mean 'iapdesk retention default list'?"))
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
        let pending = try await run(["retention", "default", "set", "com.iapdesk.demo.pro.monthly", "en-US", "--message", messageId, "--demo", "--yes"], environment: env)
        #expect(pending.status == 4)
        #expect(pending.stderr.contains("MessageNotApprovedError (4030017)"))
        let locale = try await run(["retention", "default", "get", "com.iapdesk.demo.pro.monthly", "english", "--demo"], environment: env)
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
