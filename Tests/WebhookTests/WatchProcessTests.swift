import AppStoreServerAPI
import DemoServer
import DeskStore
import Foundation
import Testing

/// The built binary's `watch` against a demo App Store Server whose deliveries fail, a store file,
/// a local alert endpoint and an --exec command: the on-call loop from alert to resolved.
@Suite(.serialized) struct WatchProcessTests {
    let runner = ReconcileProcessTests()

    static func lines(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    static func incidents(_ text: String) -> [[String: Any]] { lines(text).compactMap { $0["incident"] as? [String: Any] } }

    /// Whether the process runs: not gone, and not a zombie its new parent has yet to reap.
    static func running(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first != "Z"
    }

    /// The store a receiver would have made: watch reads only a store that exists.
    static func makeStore(_ folder: TemporaryFolder) async throws {
        try await SQLiteNotificationStore.open(path: folder.storePath).close()
    }

    @Test func anOutageIsAnnouncedOnceAndResolvedWhenTheWatchRecoversIt() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (target, published) = try await ReconcileProcessTests.undeliverableNotifications(count: 2)
        let hook = try await AlertRecorder.start()
        let events = folder.url.appendingPathComponent("events.jsonl")
        let profile = try ReconcileProcessTests.profile(target.demo, folder: folder)
        try await Self.makeStore(folder)
        let watch = [
            "watch", "--once", "--window", "7d", "--store", folder.storePath, "--exec", "cat >> '\(events.path)'", "--alert-url", hook.url.absoluteString,
            "--json",
        ] + profile

        let first = try await runner.iapdesk(watch, folder: folder)
        #expect(first.status == 10, "\(first.stderr)")
        let opened = Self.incidents(first.stdout)
        let failed = try #require(opened.first { $0["key"] as? String == "production/apple-failed-sends" }, "\(first.stdout)")
        #expect(failed["event"] as? String == "opened")
        #expect(Set(published).isSubset(of: Set(failed["notificationUUIDs"] as? [String] ?? [])))
        #expect(opened.allSatisfy { $0["event"] as? String == "opened" })
        let cycle = try #require(Self.lines(first.stdout).compactMap { $0["cycle"] as? [String: Any] }.first)
        #expect(cycle["checked"] as? Bool == true)
        #expect(Set(cycle["open"] as? [String] ?? []) == Set(opened.compactMap { $0["key"] as? String }))
        // Each channel got each opening once.
        let alerts = await hook.next(opened.count)
        #expect(alerts.contains { ($0["text"] as? String)?.contains("OPENED production/apple-failed-sends") == true })
        var executed = Self.lines(try String(contentsOf: events, encoding: .utf8))
        #expect(executed.count == opened.count)
        #expect(executed.contains { $0["key"] as? String == "production/apple-failed-sends" && $0["event"] as? String == "opened" })

        // A restart finds the same incidents open and announces nothing again.
        let again = try await runner.iapdesk(watch, folder: folder)
        #expect(again.status == 10)
        #expect(Self.incidents(again.stdout).isEmpty, "\(again.stdout)")
        #expect(Self.lines(try String(contentsOf: events, encoding: .utf8)).count == opened.count)

        // Re-posted to the app's working endpoint: every incident resolves, announced once each.
        let recovered = try await runner.iapdesk(watch + ["--recover-to", target.url.absoluteString, "--recover-rate", "50"], folder: folder)
        #expect(recovered.status == 0, "\(recovered.stdout) \(recovered.stderr)")
        let resolved = Self.incidents(recovered.stdout)
        #expect(resolved.count == opened.count)
        #expect(resolved.allSatisfy { $0["event"] as? String == "resolved" && $0["resolvedAtMs"] != nil })
        let resolveAlerts = await hook.next(resolved.count)
        #expect(resolveAlerts.allSatisfy { ($0["text"] as? String)?.contains("RESOLVED") == true })
        executed = Self.lines(try String(contentsOf: events, encoding: .utf8))
        #expect(executed.count == opened.count * 2)
        let last = try #require(Self.lines(recovered.stdout).compactMap { $0["cycle"] as? [String: Any] }.last)
        #expect((last["recovered"] as? Int ?? 0) >= published.count)
        #expect((last["open"] as? [String])?.isEmpty == true)
        // What the watch re-posted counts as recovered: reconcile agrees nothing is missing.
        let reconciled = try await runner.iapdesk(["reconcile", "--since", "7d", "--store", folder.storePath, "--json"] + profile, folder: folder)
        #expect(reconciled.status == 0, "\(reconciled.stderr)")
        await hook.stop()
        await target.stop()
    }

    /// SIGTERM (systemd) and Ctrl-C (a terminal) both let the cycle in flight finish and exit 0.
    @Test(arguments: [SIGTERM, SIGINT]) func aStopSignalEndsALongRunningWatchWithExit0(signal: Int32) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (target, _) = try await ReconcileProcessTests.undeliverableNotifications(count: 1)
        let hook = try await AlertRecorder.start()
        let profile = try ReconcileProcessTests.profile(target.demo, folder: folder)
        try await Self.makeStore(folder)
        let arguments = ["watch", "--interval", "1h", "--window", "1d", "--store", folder.storePath, "--alert-url", hook.url.absoluteString] + profile
        let finished = try await runner.iapdesk(arguments, folder: folder) { process in
            // Its first cycle announced the outage: then it is asked to stop.
            _ = await hook.next(1)
            kill(process.processIdentifier, signal)
        }
        #expect(finished.status == 0, "\(finished.stderr)")
        #expect(finished.stdout.contains("OPENED production/apple-failed-sends"))
        #expect(finished.stderr.contains("Stopped. "), "\(finished.stderr)")
        #expect(finished.stderr.contains("production/apple-failed-sends"))
        #expect(!finished.stderr.contains("not announced"), "\(finished.stderr)")
        await hook.stop()
        await target.stop()
    }

    /// A second watch on the store (a cron job's --once, a forgotten test) opens what it finds, but
    /// each watch's channels are told by that watch: nothing is taken from the first one's pager.
    @Test func anotherWatchOnTheStoreTakesNoAnnouncementFromThisOnesChannels() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (target, _) = try await ReconcileProcessTests.undeliverableNotifications(count: 1)
        let profile = try ReconcileProcessTests.profile(target.demo, folder: folder)
        try await Self.makeStore(folder)
        let pager = folder.url.appendingPathComponent("pager.jsonl")
        let base = ["watch", "--once", "--window", "7d", "--store", folder.storePath, "--json"] + profile
        // The other watch comes first and opens the incidents: it says so on its output only.
        let other = try await runner.iapdesk(base, folder: folder)
        #expect(other.status == 10)
        let openedByOther = Self.incidents(other.stdout)
        #expect(!openedByOther.isEmpty && openedByOther.allSatisfy { $0["event"] as? String == "opened" })
        // The watch with the pager is still told of each of them, once.
        let paged = base + ["--exec", "cat >> '\(pager.path)'"]
        let first = try await runner.iapdesk(paged, folder: folder)
        #expect(first.status == 10)
        var told = Self.lines(try String(contentsOf: pager, encoding: .utf8))
        #expect(Set(told.compactMap { $0["key"] as? String }) == Set(openedByOther.compactMap { $0["key"] as? String }))
        #expect(told.allSatisfy { $0["event"] as? String == "opened" })
        _ = try await runner.iapdesk(base, folder: folder)
        _ = try await runner.iapdesk(paged, folder: folder)
        #expect(Self.lines(try String(contentsOf: pager, encoding: .utf8)).count == told.count)
        // Resolved by the other watch's recovery: the pager hears of the end from its own watch.
        let recovered = try await runner.iapdesk(base + ["--recover-to", target.url.absoluteString, "--recover-rate", "50"], folder: folder)
        #expect(recovered.status == 0, "\(recovered.stderr)")
        _ = try await runner.iapdesk(paged, folder: folder)
        told = Self.lines(try String(contentsOf: pager, encoding: .utf8))
        #expect(told.filter { $0["event"] as? String == "resolved" }.count == openedByOther.count)
        await target.stop()
    }

    /// A hook that hangs is stopped at --alert-timeout, with what it left running, and tried again next cycle.
    @Test func aHangingHookIsStoppedAtItsTimeout() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (target, _) = try await ReconcileProcessTests.undeliverableNotifications(count: 1)
        let profile = try ReconcileProcessTests.profile(target.demo, folder: folder)
        try await Self.makeStore(folder)
        let pids = folder.url.appendingPathComponent("pids")
        let hook = "sleep 600 & echo $! >> '\(pids.path)'; wait"
        let run = try await runner.iapdesk(
            ["watch", "--once", "--window", "7d", "--store", folder.storePath, "--exec", hook, "--alert-timeout", "1"] + profile, folder: folder)
        #expect(run.status == 10)
        #expect(run.stderr.contains("--exec did not finish within 1 s: stopped"), "\(run.stderr)")
        #expect(run.stderr.contains("not announced (tried again next cycle)"))
        // Every sleep the hook started is gone with it.
        let started = try String(contentsOf: pids, encoding: .utf8).split(separator: "\n").compactMap { Int32($0) }
        #expect(!started.isEmpty)
        for pid in started { #expect(!Self.running(pid), "sleep \(pid) still runs") }
        await target.stop()
    }

    @Test func badOptionsAreRefusedBeforeAnythingRuns() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for (arguments, message) in [
            (["--interval", "2s"], "--interval must be a span of at least 10 seconds"),
            (["--window", "soon"], "--window must be a span"),
            (["--alert-format", "opsgenie"], "--alert-format must be slack or pagerduty"),
            (["--alert-format", "pagerduty", "--alert-url", "https://events.pagerduty.com/v2/enqueue"], "IAPDESK_PAGERDUTY_ROUTING_KEY"),
            (["--alert-url", "ftp://x"], "--alert-url must be an http(s) URL"),
            (["--recover-to", "notaurl"], "--recover-to must be an http(s) URL"),
        ] {
            let run = try await runner.iapdesk(["watch", "--demo"] + arguments, folder: folder)
            #expect(run.status == 64, "\(arguments)")
            #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
        }
    }
}
