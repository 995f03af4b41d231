import AppStoreServerAPI
import Foundation
import Synchronization

/// The demo's mutable state behind one lock; routes read and write it in short critical sections
/// and sign outside them.
final class DemoStore: Sendable {
    let signer: JWSSigner
    private let state: Mutex<DemoDataset>
    private let webhookURL: Mutex<URL?>
    let deliveryFaults = DeliveryFaultPlan()
    let clock: @Sendable () -> Date
    /// Fault injection: every JWS served has one signature byte changed.
    let corruptSignatures: Bool
    /// Every JWS as it went out, when asked for (tests compare what a client kept with it).
    private let servedLog: Mutex<[String]>?
    /// Where accepted writes are kept when the demo keeps its state between runs.
    let journal: DemoJournal?
    /// How far this process has read the journal, and the lines it appended itself (already applied).
    private let journalRead: Mutex<(offset: UInt64, own: Set<UInt64>)>
    /// The journal's write lock while a write runs: its line is appended through it.
    private let heldJournal = Mutex<LockedFile?>(nil)
    /// What the demo's own receiver does with a body it takes (keeps it where the demo's arrivals
    /// are kept); nil: it only answers 200.
    let ownReceiver = Mutex<(@Sendable (Data) async -> Bool)?>(nil)
    /// Deliveries still on their way (a process that keeps its state lets them land before it ends).
    let deliveries = Mutex<[UUID: Task<Void, Never>]>([:])

    init(
        dataset: DemoDataset, signer: JWSSigner, webhookURL: URL?, corruptSignatures: Bool = false, recordsServed: Bool = false,
        journal: DemoJournal? = nil, journalOffset: UInt64 = 0, clock: @escaping @Sendable () -> Date
    ) {
        self.journal = journal
        self.journalRead = Mutex((journalOffset, []))
        self.state = Mutex(dataset)
        self.corruptSignatures = corruptSignatures
        self.servedLog = recordsServed ? Mutex([]) : nil
        self.signer = signer
        self.webhookURL = Mutex(webhookURL)
        self.clock = clock
    }

    var webhook: URL? {
        get {
            if let path = sharedWebhookPath, let text = try? String(contentsOfFile: path, encoding: .utf8),
               let url = URL(string: text.trimmingCharacters(in: .whitespacesAndNewlines)), url.scheme != nil {
                return url
            }
            return webhookURL.withLock { $0 }
        }
        set { webhookURL.withLock { $0 = newValue } }
    }

    /// The file in the state folder naming the receiver every demo process sends to.
    private var sharedWebhookPath: String? {
        journal.map { ($0.path as NSString).deletingLastPathComponent + "/webhook-url" }
    }

    /// Makes `url` the receiver every demo process sends to; returns the one named before, if any.
    @discardableResult
    func shareWebhook(_ url: URL) -> URL? {
        let previous = sharedWebhook
        webhookURL.withLock { $0 = url }
        guard let path = sharedWebhookPath else { return previous }
        try? Data((url.absoluteString + "\n").utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        return previous
    }

    /// A receiver that stops hands the demo's notifications back to the one before it (or to
    /// nobody), unless another took them meanwhile: a stopped receiver must not keep them.
    func withdrawWebhook(_ url: URL, restoring previous: URL?) {
        guard let path = sharedWebhookPath, sharedWebhook == url else { return }
        if let previous {
            try? Data((previous.absoluteString + "\n").utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } else {
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    var sharedWebhookURL: URL? { sharedWebhook }

    /// The receiver the state folder names, if any.
    private var sharedWebhook: URL? {
        guard let path = sharedWebhookPath, let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return URL(string: text.trimmingCharacters(in: .whitespacesAndNewlines)).flatMap { $0.scheme == nil ? nil : $0 }
    }

    /// Every demo process on one state folder is one App Store Server: each request first applies
    /// what the others journaled since, so a write made by one (an extension, a notification) is
    /// what the next request to any of them sees.
    func read<T>(_ environment: AppStoreEnvironment, _ body: (DemoEnvironmentData) throws(DemoAPIError) -> T) throws(DemoAPIError) -> T {
        // The journal is read before the state's lock is taken: a writer of this process holds the
        // journal's lock first and then the state's, and the two must always be taken in that order.
        let others = unread(through: nil)
        return try state.withLock { (dataset: inout DemoDataset) throws(DemoAPIError) -> T in
            apply(others, to: &dataset)
            return try body(dataset[environment])
        }
    }

    /// A write holds the journal for writing from before it reads until its line is kept, so two
    /// processes' writes are checked one after the other (the second sees the first's extension).
    func write<T>(_ environment: AppStoreEnvironment, _ body: (inout DemoEnvironmentData) throws(DemoAPIError) -> T) throws(DemoAPIError) -> T {
        let held = journal.flatMap { (try? $0.lockForWriting()) ?? nil }
        defer { held?.close() }
        let others = unread(through: held)
        return try state.withLock { (dataset: inout DemoDataset) throws(DemoAPIError) -> T in
            apply(others, to: &dataset)
            heldJournal.withLock { $0 = held }
            defer { heldJournal.withLock { $0 = nil } }
            var data = dataset[environment]
            defer { dataset[environment] = data }
            return try body(&data)
        }
    }

    /// The journal's lines appended since this process last read it (none without a journal).
    private func unread(through held: LockedFile?) -> (lines: [(start: UInt64, entry: DemoJournalEntry)], end: UInt64)? {
        guard let journal else { return nil }
        let offset = journalRead.withLock { $0.offset }
        guard held != nil || journal.size() > offset else { return nil }
        let read = journal.lines(after: offset, through: held)
        return read.end > offset ? read : nil
    }

    /// Applies what other processes appended, under the state's lock: lines another thread of this
    /// process applied meanwhile, and this process's own, are skipped.
    private func apply(_ read: (lines: [(start: UInt64, entry: DemoJournalEntry)], end: UInt64)?, to dataset: inout DemoDataset) {
        guard let read else { return }
        let (offset, own) = journalRead.withLock { ($0.offset, $0.own) }
        for line in read.lines where line.start >= offset && !own.contains(line.start) { dataset[line.entry.environment].apply(line.entry) }
        journalRead.withLock { state in
            state.offset = max(state.offset, read.end)
            state.own = state.own.filter { $0 >= state.offset }
        }
    }

    /// Keeps an accepted write in the journal before it is applied; a write that cannot be kept is
    /// answered 500 and not applied, so what was answered and what is kept never differ.
    func keep(_ entry: DemoJournalEntry) throws(DemoAPIError) {
        guard let journal else { return }
        do {
            let start = try journal.append(entry, through: heldJournal.withLock { $0 })
            // Applied by the write itself: this process skips its own line when it catches up.
            journalRead.withLock { _ = $0.own.insert(start) }
        } catch {
            throw DemoAPIError(5_000_000, "An unknown error occurred. (The demo could not keep this write: \(error))")
        }
    }

    /// Runs `work` in the background, tracked until it ends.
    func track(_ work: @escaping @Sendable () async -> Void) {
        let id = UUID()
        // Added under the lock the task's own removal takes, so the removal always comes second.
        deliveries.withLock { running in
            running[id] = Task.detached { [weak self] in
                await work()
                _ = self?.deliveries.withLock { $0.removeValue(forKey: id) }
            }
        }
    }

    /// Waits for tracked work to end, and for work it started meanwhile: deliveries, each of which
    /// ends within the webhook's timeout.
    func drain() async {
        while true {
            let running = deliveries.withLock { Array($0.values) }
            if running.isEmpty { return }
            for task in running { await task.value }
        }
    }

    /// A transaction signed now, as Apple signs each answer, as it goes out.
    func sign(_ transaction: TransactionPayload) -> String { served(signedNow(transaction)) }

    func sign(_ renewal: RenewalInfoPayload) -> String { served(signedNow(renewal)) }

    func sign(_ app: AppTransactionPayload) -> String {
        var payload = app
        payload.receiptCreationDate = clock()
        return served(signed(payload))
    }

    /// Signed now but not yet served: for payloads nested in a notification, which is served whole.
    func signedNow(_ transaction: TransactionPayload) -> String {
        var payload = transaction
        payload.signedDate = clock()
        return signed(payload)
    }

    func signedNow(_ renewal: RenewalInfoPayload) -> String {
        var payload = renewal
        payload.signedDate = clock()
        return signed(payload)
    }

    func signed(_ payload: some Encodable) -> String {
        // The payload types encode only plain values: failure would be a programming error.
        (try? signer.sign(payload)) ?? ""
    }

    /// A stored notification as it goes out. With the bad-signature fault on, the signed payloads
    /// nested in it (transaction, renewal info, app transaction) are altered as well, so a client
    /// that checks only the outer signature, or decodes the nested ones on their own, still sees the fault.
    func servedNotification(_ jws: String) -> String {
        guard corruptSignatures else { return logged(jws) }
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(parts[1]), let json = try? JSONValue.parse(payload) else {
            return served(jws)
        }
        let spoiled = Self.spoilingNested(json, with: served)
        return served(signer.sign(json: Data(spoiled.rendered().utf8)))
    }

    /// Every string under a key starting with "signed" (a nested JWS), passed through `spoil`.
    static func spoilingNested(_ value: JSONValue, with spoil: (String) -> String) -> JSONValue {
        switch value {
        case .object(let members):
            return .object(members.map { member in
                if member.key.hasPrefix("signed"), case .string(let jws) = member.value { return (member.key, .string(spoil(jws))) }
                return (member.key, spoilingNested(member.value, with: spoil))
            })
        case .array(let items): return .array(items.map { spoilingNested($0, with: spoil) })
        default: return value
        }
    }

    /// A stored JWS as it goes out: altered when the bad-signature fault is on.
    func served(_ jws: String) -> String {
        guard corruptSignatures, let dot = jws.lastIndex(of: "."), jws.index(after: dot) < jws.endIndex else { return logged(jws) }
        var characters = Array(jws)
        let position = jws.distance(from: jws.startIndex, to: jws.index(after: dot)) + 3
        guard position < characters.count else { return logged(jws) }
        characters[position] = characters[position] == "A" ? "B" : "A"
        return logged(String(characters))
    }

    private func logged(_ jws: String) -> String {
        servedLog?.withLock { $0.append(jws) }
        return jws
    }

    /// What `served` and `servedNotification` handed out so far (empty unless recording).
    var servedSignatures: [String] { servedLog?.withLock { $0 } ?? [] }
}
