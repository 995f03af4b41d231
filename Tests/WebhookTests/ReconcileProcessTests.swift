import AppStoreServerAPI
import DemoServer
import DeskStore
import Foundation
import Testing

/// The built binary's `reconcile`, `replay` and `recover` against a demo App Store Server, a store
/// file the test fills, and a receiver the test starts that records what it got. Serialized: each
/// test runs the binary and servers.
@Suite(.serialized) struct ReconcileProcessTests {
    struct Finished {
        let status: Int32
        let stdout: String
        let stderr: String

        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any]) ?? [:] }
    }

    /// Runs `iapdesk` to its end, as `CommandLineTests.launch` does: its output read to the end on
    /// dispatch threads (never a thread of the pool), so nothing is cut however busy the machine
    /// is. `whileRunning` gets the process once it started (to interrupt it).
    func iapdesk(
        _ arguments: [String], folder: TemporaryFolder, whileRunning: (@Sendable (Process) async -> Void)? = nil
    ) async throws -> Finished {
        let process = Process()
        process.executableURL = ListenProcessTests.binary
        process.arguments = arguments
        process.environment = [
            "HOME": folder.url.path, "XDG_CONFIG_HOME": folder.url.appendingPathComponent("config").path, "PATH": "/usr/bin:/bin", "COLUMNS": "200",
        ]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let output = Locked((out: Data(), err: Data()))
        let group = DispatchGroup()
        for _ in 0..<3 { group.enter() }
        process.terminationHandler = { _ in group.leave() }
        try process.run()
        DispatchQueue.global().async {
            let data = out.fileHandleForReading.readDataToEndOfFile()
            output.withLock { $0.out = data }
            group.leave()
        }
        DispatchQueue.global().async {
            let data = err.fileHandleForReading.readDataToEndOfFile()
            output.withLock { $0.err = data }
            group.leave()
        }
        let watcher = whileRunning.map { watch in Task { await watch(process) } }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            group.notify(queue: .global()) { continuation.resume() }
        }
        watcher?.cancel()
        let (stdout, stderr) = output.withLock { ($0.out, $0.err) }
        return Finished(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// Every notification of the demo's history signed in the last `days`, decoded with its attempts.
    static func history(_ demo: DemoServer, days: Double) async throws -> [(uuid: String, signedDate: Date, attempts: [SendAttemptItem], signedPayload: String)] {
        let client = try demo.makeClient()
        let verifier = try demo.makeVerifier()
        var request = NotificationHistoryRequest()
        request.startDate = Date().addingTimeInterval(-days * 86_400)
        request.endDate = Date()
        var entries: [(uuid: String, signedDate: Date, attempts: [SendAttemptItem], signedPayload: String)] = []
        for try await page in client.notificationHistoryPages(request: request) {
            for item in page.notificationHistory ?? [] {
                let jws = try #require(item.signedPayload)
                let payload = try #require(await verifier.verifyNotification(jws).notification.payload)
                entries.append((try #require(payload.notificationUUID), try #require(payload.signedDate), item.sendAttempts ?? [], jws))
            }
        }
        return entries
    }

    static func delivery(_ uuid: String, signed: Date, body: Data? = nil) -> NotificationDelivery {
        var delivery = NotificationDelivery(
            notificationUUID: uuid, rawBody: body ?? Notifications.body("stored-\(uuid)"), verdict: "verified", receivedAt: signed.addingTimeInterval(3))
        delivery.signedDate = signed
        delivery.notificationType = "DID_RENEW"
        delivery.environment = "Production"
        return delivery
    }

    /// The profile flags that point the binary at an in-process demo server, with its key and root in `folder`.
    static func profile(_ demo: DemoServer, folder: TemporaryFolder) throws -> [String] {
        let key = folder.url.appendingPathComponent("key.p8").path
        _ = FileManager.default.createFile(atPath: key, contents: Data(demo.signingKey.pemRepresentation.utf8), attributes: [.posixPermissions: 0o600])
        let root = folder.url.appendingPathComponent("root.der")
        try demo.rootCertificateDER.write(to: root)
        return [
            "--base-url", demo.baseURL.absoluteString, "--environment", "Production", "--issuer-id", DemoServer.issuerId, "--key-id", DemoServer.keyId,
            "--key-file", key, "--bundle-id", DemoServer.bundleId, "--app-apple-id", String(DemoServer.appAppleId), "--root-cert", root.path,
        ]
    }

    @Test func reconcileWithTheDemoGivesEachKindOfGapItsVerdictAndExit10() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // The binary's own demo builds the same dataset (same seed, same notificationUUIDs) as this one.
        let demo = try await DemoServer.start()
        let history = try await Self.history(demo, days: 9)
        await demo.stop()
        let delivered = history.filter { $0.attempts.count == 1 && $0.attempts.first?.sendAttemptResult == .success }
        let received = try #require(delivered.first)
        let duplicated = try #require(delivered.dropFirst().first)
        let retried = try #require(history.first { $0.attempts.count > 1 && $0.attempts.last?.sendAttemptResult == .success })
        let undelivered = try #require(history.first { $0.attempts.last?.sendAttemptResult != .success })
        let unknown = UUID().uuidString.lowercased()

        let store = try await SQLiteNotificationStore.open(path: folder.storePath)
        _ = try await store.record(Self.delivery(received.uuid, signed: received.signedDate))
        _ = try await store.record(Self.delivery(duplicated.uuid, signed: duplicated.signedDate))
        _ = try await store.record(Self.delivery(duplicated.uuid, signed: duplicated.signedDate))
        _ = try await store.record(Self.delivery(retried.uuid, signed: retried.signedDate))
        _ = try await store.record(Self.delivery(unknown, signed: Date().addingTimeInterval(-86_400)))
        try await store.close()

        let run = try await iapdesk(["reconcile", "--demo", "--since", "10d", "--store", folder.storePath, "--json"], folder: folder)
        #expect(run.status == 10, "\(run.stderr)")
        #expect(run.stderr.contains("Gaps found"))
        let rows = try #require(run.json["notifications"] as? [[String: Any]], "\(run.stdout)")
        let verdicts = Dictionary(rows.compactMap { row in (row["notificationUUID"] as? String).map { ($0, row["verdict"] as? String ?? "") } }) { $1 }
        #expect(verdicts[received.uuid] == "received")
        #expect(verdicts[duplicated.uuid] == "duplicate")
        #expect(verdicts[retried.uuid] == "failed-at-apple-but-arrived")
        #expect(verdicts[undelivered.uuid] == "not-delivered-and-missing")
        #expect(verdicts[unknown] == "unknown-to-apple")
        let missing = history.filter { ![received.uuid, duplicated.uuid, retried.uuid].contains($0.uuid) && $0.attempts.last?.sendAttemptResult == .success }
        #expect(!missing.isEmpty)
        #expect(missing.allSatisfy { verdicts[$0.uuid] == "delivered-but-missing" })
        let counts = try #require(run.json["counts"] as? [String: Int])
        #expect(counts["unknown-to-apple"] == 1)
        #expect(counts["duplicate"] == 1)
        #expect(counts["failed-at-apple-but-arrived"] == 1)
        #expect(counts.values.reduce(0, +) == rows.count)
        #expect(run.json["gaps"] as? Bool == true)

        // The table: counts first, then every UUID in full with its verdict.
        let table = try await iapdesk(["reconcile", "--demo", "--since", "10d", "--store", folder.storePath], folder: folder)
        #expect(table.status == 10)
        let countsAt = try #require(table.stdout.range(of: "VERDICT")?.lowerBound)
        let rowsAt = try #require(table.stdout.range(of: "APPLE LAST")?.lowerBound)
        #expect(countsAt < rowsAt)
        #expect(table.stdout.contains(unknown))
        #expect(table.stdout.contains(undelivered.uuid))
        #expect(table.stdout.contains("arrived but unknown to Apple"))
    }

    @Test func reconcileOfAStoreInStepWithAppleExits0AndBadInputIsRefused() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let demo = try await DemoServer.start()
        // The last 36 hours hold no notification near the window's edges.
        let history = try await Self.history(demo, days: 1.5)
        await demo.stop()
        #expect(!history.isEmpty)
        let store = try await SQLiteNotificationStore.open(path: folder.storePath)
        for entry in history { _ = try await store.record(Self.delivery(entry.uuid, signed: entry.signedDate)) }
        try await store.close()
        let run = try await iapdesk(["reconcile", "--demo", "--since", "36h", "--store", folder.storePath, "--json"], folder: folder)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.json["gaps"] as? Bool == false)
        #expect((run.json["counts"] as? [String: Int])?["received"] == history.filter { $0.attempts.last?.sendAttemptResult == .success }.count)

        let tooOld = try await iapdesk(["reconcile", "--demo", "--since", "400d", "--store", folder.storePath, "--json"], folder: folder)
        #expect(tooOld.stderr.contains("Apple keeps 180 days of notification history"))
        let badDate = try await iapdesk(["reconcile", "--demo", "--since", "last week", "--store", folder.storePath], folder: folder)
        #expect(badDate.status == 64)
        #expect(badDate.stderr.contains("--since last week is not a date"))
        let noStore = try await iapdesk(["reconcile", "--demo", "--store", folder.url.appendingPathComponent("none.sqlite").path], folder: folder)
        #expect(noStore.status == 2)
        #expect(noStore.stderr.contains("No notifications stored yet"))
    }

    @Test func reconcileSaysWhatAppleAnsweredAndReportsEntriesThatDoNotVerify() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        _ = try await SQLiteNotificationStore.open(path: folder.storePath).close()
        let arguments = ["reconcile", "--since", "3d", "--store", folder.storePath, "--timeout", "30"]

        // Signatures the verifier refuses: every entry is joined all the same, and said not to verify.
        var forged = DemoFaults()
        forged.badSignatures = true
        var configuration = DemoServer.Configuration()
        configuration.faults = forged
        let badSignatures = try await DemoServer.start(configuration)
        let unverified = try await iapdesk(arguments + ["--json"] + Self.profile(badSignatures, folder: folder), folder: folder)
        let rows = try #require(unverified.json["notifications"] as? [[String: Any]], "\(unverified.stderr)")
        #expect(!rows.isEmpty)
        #expect(rows.allSatisfy { (($0["apple"] as? [String: Any])?["verification"] as? [String: Any])?["status"] as? String == "failed" })
        #expect(unverified.status == 10)
        let table = try await iapdesk(arguments + Self.profile(badSignatures, folder: folder), folder: folder)
        #expect(table.stdout.contains("NOT VERIFIED"))
        #expect(table.stdout.contains("Did not verify"))
        let strangerKey = Data(badSignatures.signingKey.pemRepresentation.utf8)
        await badSignatures.stop()

        // A key the server does not know: 401, exit 6, and nothing secret said.
        let demo = try await DemoServer.start()
        var profile = try Self.profile(demo, folder: folder)
        let otherKey = folder.url.appendingPathComponent("other.p8").path
        _ = FileManager.default.createFile(atPath: otherKey, contents: strangerKey, attributes: [.posixPermissions: 0o600])
        profile[profile.firstIndex(of: "--key-file")! + 1] = otherKey
        let unauthorized = try await iapdesk(arguments + profile, folder: folder)
        #expect(unauthorized.status == 6, "\(unauthorized.stderr)")
        #expect(unauthorized.stderr.contains("error:"))
        #expect(!unauthorized.stderr.contains("PRIVATE KEY"))
        await demo.stop()

        // Apple failing with 503 on every request: exit 5 once the retries are spent.
        var failing = DemoFaults()
        failing.failEvery = 1
        failing.failureStatus = 503
        configuration.faults = failing
        let down = try await DemoServer.start(configuration)
        let unavailable = try await iapdesk(arguments + Self.profile(down, folder: folder), folder: folder)
        #expect(unavailable.status == 5, "\(unavailable.stderr)")
        #expect(unavailable.stdout.isEmpty)
        await down.stop()
    }

    /// A receiver that verifies the demo's chain and records what arrives; the demo's own webhook
    /// points at a closed port, so the notifications it publishes fail to deliver.
    static func undeliverableNotifications(count: Int) async throws -> (target: ReceiverBench, published: [String]) {
        let closed = try await ReceiverBench.start()
        let deadURL = closed.url
        await closed.stop()
        let target = try await ReceiverBench.start()
        target.demo.webhookURL = deadURL
        let client = try target.demo.makeClient()
        let before = Set(try await history(target.demo, days: 1).map(\.uuid))
        var extended = 0
        for original in target.demo.seedIDs().activeSubscriptionOriginalTransactionIds where extended < count {
            let request = ExtendRenewalDateRequest(extendByDays: 1, extendReasonCode: .customerSatisfaction, requestIdentifier: UUID().uuidString)
            if (try? await client.extendSubscriptionRenewalDate(originalTransactionId: original, request: request)) != nil { extended += 1 }
        }
        // Each publishes a RENEWAL_EXTENDED whose delivery attempt fails in the background: wait for the attempts.
        await target.demo.deliveriesLanded()
        let fresh = try await history(target.demo, days: 1).filter { !before.contains($0.uuid) }
        let published = fresh.filter { !$0.attempts.isEmpty }.map(\.uuid)
        #expect(fresh.count == extended)
        #expect(extended == count)
        #expect(published.count == count)
        return (target, published)
    }

    @Test func recoverSendsWhatAppleCouldNotDeliverAtTheRateAndRecordsIt() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (target, published) = try await Self.undeliverableNotifications(count: 4)
        let history = try await Self.history(target.demo, days: 7)
        let undelivered = history.filter { $0.attempts.last?.sendAttemptResult != .success }
        // One arrived here but its forward failed (its stored body goes), one arrived and was not forwarded (skipped).
        let forwardFailed = published[0]
        let keptHere = published[1]
        // Signed anew with the same notificationUUID, so the stored body can be told from Apple's.
        let storedBody = Notifications.body(try target.notifications.payload(uuid: forwardFailed))
        let store = try await SQLiteNotificationStore.open(path: folder.storePath)
        let outcome = try await store.record(Self.delivery(forwardFailed, signed: Date(), body: storedBody))
        try await store.recordForward(
            ForwardOutcome(result: "timed out after 10 s", status: nil, milliseconds: 10_000, answeredStatus: 200, elapsedMilliseconds: 10_001),
            delivery: outcome.deliveryId)
        _ = try await store.record(Self.delivery(keptHere, signed: Date()))
        try await store.close()
        // Every notification that did not reach the app: Apple's failures, and what Apple delivered elsewhere.
        let expected = Set(history.map(\.uuid)).subtracting([keptHere])
        #expect(Set(undelivered.map(\.uuid)).subtracting([keptHere]).count >= 4)
        let profile = try Self.profile(target.demo, folder: folder)
        let arguments = ["recover", "--since", "7d", "--to", target.url.absoluteString, "--store", folder.storePath] + profile

        let dryRun = try await iapdesk(arguments + ["--dry-run"], folder: folder)
        #expect(dryRun.status == 0, "\(dryRun.stderr)")
        #expect(dryRun.stdout.contains("Dry run: nothing was sent."))
        #expect(dryRun.stdout.contains("signedDate stays the original one"))
        for uuid in expected { #expect(dryRun.stdout.contains(uuid)) }
        #expect(dryRun.stdout.contains("not forwarded"))
        #expect(try await target.store.notifications(NotificationFilter()).isEmpty)

        let rate = 4.0
        let run = try await iapdesk(arguments + ["--rate", "4", "--json"], folder: folder)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.json["sent"] as? Int == expected.count)
        #expect(run.json["accepted"] as? Int == expected.count)
        // Exactly the expected bodies arrived: Apple's signedPayload, or the stored body as it arrived.
        let arrived = try await target.store.notifications(NotificationFilter())
        #expect(Set(arrived.map(\.notificationUUID)) == expected)
        #expect(arrived.allSatisfy { $0.deliveryCount == 1 })
        let payloads = Dictionary(uniqueKeysWithValues: history.map { ($0.uuid, $0.signedPayload) })
        for row in arrived where row.notificationUUID != forwardFailed {
            #expect(ReceivedCommandProbe.signedPayload(row.rawBody) == payloads[row.notificationUUID])
        }
        #expect(arrived.first { $0.notificationUUID == forwardFailed }?.rawBody == storedBody)
        #expect(try await target.store.quarantined(QuarantineFilter()).isEmpty)
        // Each outcome is recorded.
        let recorded = try await SQLiteNotificationStore.open(path: folder.storePath, create: false)
        let replays = try await recorded.replays(uuids: expected.union([keptHere]))
        try await recorded.close()
        // The rate: n sends span at least (n - 1) / rate seconds, by the times recover stamped as it
        // sent them (a receiver's stamps move with how soon a busy machine lets it run).
        let times = replays.map(\.attempt.sentAt).sorted()
        let span = try #require(times.last).timeIntervalSince(try #require(times.first))
        #expect(span >= Double(times.count - 1) / rate - 0.1, "sent \(times.count) in \(span) s")
        #expect(Set(replays.map(\.attempt.notificationUUID)) == expected)
        #expect(replays.allSatisfy { $0.attempt.command == "recover" && $0.attempt.targetURL == target.url.absoluteString })
        #expect(replays.first { $0.attempt.notificationUUID == forwardFailed }?.attempt.source == .store)
        #expect(replays.filter { $0.attempt.source == .appleHistory }.allSatisfy { $0.attempt.status == 200 })

        // Run again: what was taken is not sent again.
        let again = try await iapdesk(arguments + ["--json"], folder: folder)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.json["sent"] as? Int == 0)
        #expect(try await target.store.notifications(NotificationFilter()).allSatisfy { $0.deliveryCount == 1 })

        // Fixed means fixed: reconcile counts what recover delivered, and finds nothing missing.
        let reconciled = try await iapdesk(["reconcile", "--since", "7d", "--store", folder.storePath, "--json"] + profile, folder: folder)
        #expect(reconciled.status == 0, "\(reconciled.stdout.prefix(2000)) \(reconciled.stderr)")
        let counts = try #require(reconciled.json["counts"] as? [String: Int])
        // The stored body whose forward failed counts too: the re-post is what brought it to the app.
        #expect(counts["recovered"] == expected.count, "\(counts)")
        let rows = try #require(reconciled.json["notifications"] as? [[String: Any]])
        let recovered = try #require(rows.first { $0["verdict"] as? String == "recovered" })
        #expect((recovered["action"] as? String)?.contains("re-posted by recover to \(target.url.absoluteString)") == true)
        await target.stop()
    }

    /// The on-call engineer's whole job against the demo, one process a step as in a shell: gaps
    /// found, recovered to an app that answers 200, and reconcile then says nothing is missing.
    @Test func theOnCallLoopEndsWithReconcileFindingNothingMissing() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // A healthy app: the demo server's own webhook route answers 200 to every notification.
        let app = try await DemoServer.start()
        defer { Task { await app.stop() } }
        let before = try await iapdesk(["reconcile", "--since", "179d", "--demo", "--json"], folder: folder)
        #expect(before.status == 10, "\(before.stderr)")
        let gaps = try #require(before.json["counts"] as? [String: Int])
        let missing = (gaps["delivered-but-missing"] ?? 0) + (gaps["not-delivered-and-missing"] ?? 0)
        #expect(missing > 0, "\(gaps)")

        let recover = try await iapdesk(["recover", "--since", "179d", "--demo", "--to", app.receiverURL.absoluteString, "--rate", "100", "--json"], folder: folder)
        #expect(recover.status == 0, "\(recover.stderr)")
        #expect(recover.json["accepted"] as? Int == missing)

        let after = try await iapdesk(["reconcile", "--since", "179d", "--demo", "--json"], folder: folder)
        #expect(after.status == 0, "\(after.stdout.prefix(1500)) \(after.stderr)")
        let counts = try #require(after.json["counts"] as? [String: Int])
        #expect(counts["recovered"] == missing)
        #expect(counts["delivered-but-missing"] == 0 && counts["not-delivered-and-missing"] == 0)
        // A second recover finds nothing left to send.
        let again = try await iapdesk(["recover", "--since", "179d", "--demo", "--to", app.receiverURL.absoluteString, "--json"], folder: folder)
        #expect(again.status == 0)
        #expect(again.json["sent"] as? Int == 0)

        // A write from another shell publishes a notification; the demo delivers it to its own
        // receiver, which keeps it as a receiver in front of the app would: still nothing missing.
        let extended = try await iapdesk(["extend", "2000000400000044", "--days", "3", "--reason", "service-issue", "--demo", "--yes"], folder: folder)
        #expect(extended.status == 0, "\(extended.stderr)")
        let afterWrite = try await iapdesk(["reconcile", "--since", "179d", "--demo", "--json"], folder: folder)
        #expect(afterWrite.status == 0, "\(afterWrite.stdout.prefix(1500)) \(afterWrite.stderr)")
    }

    @Test func ctrlCDuringRecoverStopsBetweenTwoPostsAndSaysHowManyWereSent() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (target, _) = try await Self.undeliverableNotifications(count: 3)
        _ = try await SQLiteNotificationStore.open(path: folder.storePath).close()
        let profile = try Self.profile(target.demo, folder: folder)
        // One POST every 3 seconds: Ctrl-C comes well before the second.
        let store = target.store
        let run = try await iapdesk(
            ["recover", "--since", "7d", "--to", target.url.absoluteString, "--store", folder.storePath, "--rate", "0.33"] + profile, folder: folder
        ) { process in
            for _ in 0..<1_200 where (try? await store.notifications(NotificationFilter()).isEmpty) ?? true {
                try? await Task.sleep(for: .milliseconds(50))
            }
            process.interrupt()
        }
        #expect(run.status == 130, "\(run.stderr)")
        let arrived = try await target.store.notifications(NotificationFilter()).count
        #expect(arrived >= 1 && arrived < 4)
        #expect(run.stderr.contains("Interrupted: sent \(arrived) of "))
        let recorded = try await SQLiteNotificationStore.open(path: folder.storePath, create: false)
        let replays = try await recorded.notifications(NotificationFilter()).count
        let sent = try await recorded.replays(uuids: Set(try await target.store.notifications(NotificationFilter()).map(\.notificationUUID)))
        try await recorded.close()
        #expect(replays == 0)
        #expect(sent.count == arrived)
        await target.stop()
    }

    @Test func replaySendsTheStoredBodyOrApplesAndRecordsEachOutcome() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (target, published) = try await Self.undeliverableNotifications(count: 1)
        let history = try await Self.history(target.demo, days: 7)
        let fromApple = try #require(published.first)
        let storedUUID = UUID().uuidString.lowercased()
        let storedBody = Notifications.body(try target.notifications.payload(uuid: storedUUID))
        let store = try await SQLiteNotificationStore.open(path: folder.storePath)
        _ = try await store.record(Self.delivery(storedUUID, signed: Date(), body: storedBody))
        try await store.close()
        let profile = try Self.profile(target.demo, folder: folder)

        let stored = try await iapdesk(["replay", storedUUID, "--to", target.url.absoluteString, "--store", folder.storePath] + profile, folder: folder)
        #expect(stored.status == 0, "\(stored.stderr)")
        #expect(stored.stdout.contains("the body stored when it arrived"))
        #expect(stored.stdout.contains("signedDate stays the original one"))
        let apple = try await iapdesk(["replay", fromApple.uppercased(), "--to", target.url.absoluteString, "--store", folder.storePath, "--json"] + profile, folder: folder)
        #expect(apple.status == 0, "\(apple.stderr)")
        #expect(apple.json["source"] as? String == "apple-history")
        #expect(apple.json["status"] as? Int == 200)

        let arrived = Dictionary(uniqueKeysWithValues: try await target.store.notifications(NotificationFilter()).map { ($0.notificationUUID, $0.rawBody) })
        #expect(arrived.count == 2)
        #expect(arrived[storedUUID] == storedBody)
        #expect(ReceivedCommandProbe.signedPayload(try #require(arrived[fromApple])) == history.first { $0.uuid == fromApple }?.signedPayload)

        // Not anywhere, a bad UUID, a bad URL, an endpoint that is down: each said plainly.
        let unknown = try await iapdesk(["replay", UUID().uuidString, "--to", target.url.absoluteString, "--store", folder.storePath] + profile, folder: folder)
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("neither in the store nor in Apple's notification history"))
        let badUUID = try await iapdesk(["replay", "12345", "--to", target.url.absoluteString, "--store", folder.storePath] + profile, folder: folder)
        #expect(badUUID.status == 64)
        #expect(badUUID.stderr.contains("is not a notificationUUID"))
        let badURL = try await iapdesk(["replay", storedUUID, "--to", "mailto:x@example.com", "--store", folder.storePath] + profile, folder: folder)
        #expect(badURL.status == 64)
        #expect(badURL.stderr.contains("is not an http(s) URL"))
        await target.stop()
        let down = try await iapdesk(["replay", storedUUID, "--to", target.url.absoluteString, "--store", folder.storePath] + profile, folder: folder)
        #expect(down.status == 10)
        #expect(down.stdout.contains("not delivered: cannot connect"))

        let recorded = try await SQLiteNotificationStore.open(path: folder.storePath, create: false)
        let replays = try await recorded.replays(uuids: [storedUUID, fromApple])
        try await recorded.close()
        #expect(replays.map(\.attempt.status) == [200, 200, nil])
        #expect(replays.map(\.attempt.source) == [.store, .appleHistory, .store])
        #expect(replays.allSatisfy { $0.attempt.command == "replay" && $0.attempt.milliseconds >= 0 })
    }
}

/// The signedPayload of a webhook body.
enum ReceivedCommandProbe {
    static func signedPayload(_ body: Data) -> String? {
        (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["signedPayload"] as? String
    }
}
