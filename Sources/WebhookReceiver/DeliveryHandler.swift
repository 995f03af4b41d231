import AppStoreServerAPI
import DeskStore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceLifecycle
import Synchronization

/// Handles one request: read (bounded), hand the body to `NotificationIntake` (which parses and
/// verifies it, or says why not), store, answer and count.
struct DeliveryHandler: Sendable {
    let configuration: NotificationReceiver.Configuration
    let verifier: SignedDataVerifier
    let store: any NotificationStore
    /// The same store, whose health /healthz tells.
    let guarded: GuardedStore
    let onArrival: @Sendable (Arrival) -> Void
    let slots: Slots
    let deadlines = ReadDeadlines()
    let forwarder: Forwarder?
    let counters: ReceiverCounters
    let metrics: ReceiverMetrics
    /// When a notification was last stored (or counted again), for /healthz.
    let lastStored = LastStored()
    let connections: ConnectionLimits
    let rates: PeerRateLimiter
    let keeper: QuarantineKeeper
    let refusedBodies = RefusedBodies()

    init(
        configuration: NotificationReceiver.Configuration, verifier: SignedDataVerifier, store: any NotificationStore,
        onArrival: @escaping @Sendable (Arrival) -> Void
    ) {
        self.configuration = configuration
        self.verifier = verifier
        guarded = GuardedStore(store, deadline: configuration.storeDeadline, healthQuiet: configuration.storeHealthQuiet, report: configuration.onStoreHealth)
        self.store = guarded
        self.onArrival = onArrival
        self.slots = Slots(max(1, configuration.maxConcurrentRequests))
        self.forwarder = configuration.forward.map { Forwarder($0) }
        let metrics = ReceiverMetrics(enabled: configuration.metricsPath != nil || configuration.metricsAddress != nil)
        self.metrics = metrics
        let counters = ReceiverCounters(factory: metrics.factory)
        self.counters = counters
        self.connections = ConnectionLimits(
            readTimeout: configuration.readTimeout, maxPerPeer: configuration.maxConnectionsPerPeer,
            unlimited: configuration.unlimitedPeers, counters: counters)
        // Refused bodies are written with the same deadlines as notifications.
        self.keeper = QuarantineKeeper(
            store: guarded, limits: configuration.quarantine, counters: counters, writesPerSecond: configuration.quarantineWritesPerSecond)
        self.rates = PeerRateLimiter(
            rate: configuration.maxRequestsPerSecondPerPeer, burst: 2 * configuration.maxRequestsPerSecondPerPeer,
            unlimited: configuration.unlimitedPeers)
    }

    func respond(to request: Request, peer: ReceiverContext.Peer) async -> Response {
        if request.uri.path == HealthCheck.path, request.method == .get || request.method == .head { return await health() }
        // With a metrics address, the metrics are served there only.
        if configuration.metricsAddress == nil, let metricsPath = configuration.metricsPath, request.uri.path == metricsPath,
            request.method == .get
        {
            return exposition()
        }
        let remoteAddress = peer.address
        guard request.uri.path == configuration.path else {
            return Self.error(.notFound, "Nothing here: notifications are POSTed to \(configuration.path).")
        }
        guard request.method == .post else {
            var response = Self.error(.methodNotAllowed, "Only POST is accepted here.")
            response.headers[.allow] = "POST"
            return response
        }
        let (admitted, retryAfter) = rates.admit(peer.ip)
        guard admitted else {
            counters.add(.rateLimited)
            var response = Self.error(.tooManyRequests, "Too many requests from this address; send again later.")
            response.headers[.retryAfter] = String(retryAfter)
            return response
        }
        // Timed from the request's first byte: its head's arrival, and a wait for a free slot, count too.
        let start = connections.requestStart(on: peer.connection) ?? ContinuousClock.now
        let receivedAt = Date()
        // The body is read before a processing slot is taken: a slow sender holds only its own
        // connection, and the slots go to bodies that have arrived.
        connections.readingBegan()
        // A receiver too busy to reach the request in time still reads what already arrived: its
        // read gets a second (at most the timeout) whenever it begins.
        let deadline = max(start + configuration.readTimeout, .now + min(configuration.readTimeout, .seconds(1)))
        let body = await read(request, deadline: deadline)
        connections.readingEnded()
        return await slots.run {
            await handle(body, remoteAddress: remoteAddress, start: start, receivedAt: receivedAt)
        }
    }

    private func handle(_ body: Body, remoteAddress: String?, start: ContinuousClock.Instant, receivedAt: Date) async -> Response {
        metrics.receivedBody()
        switch body {
        case .failed(let prefix, let error):
            return await refuse(
                .unreadable(error), body: prefix, size: prefix.count,
                truncated: true, remoteAddress: remoteAddress, start: start, receivedAt: receivedAt)
        case .timedOut(let prefix):
            return await refuse(
                .readTimeout(configuration.readTimeout),
                body: prefix, size: prefix.count, truncated: true, status: .requestTimeout,
                remoteAddress: remoteAddress, start: start, receivedAt: receivedAt)
        case .tooLarge(let prefix, let size):
            return await refuse(
                .tooLarge(limit: configuration.maxBodyBytes, size: size),
                body: prefix, size: size, truncated: true, remoteAddress: remoteAddress, start: start, receivedAt: receivedAt)
        case .complete(let data):
            return await handle(data, remoteAddress: remoteAddress, start: start, receivedAt: receivedAt)
        }
    }

    private func handle(_ data: Data, remoteAddress: String?, start: ContinuousClock.Instant, receivedAt: Date) async -> Response {
        // Hashed only while refusals are remembered: Apple's bodies are never refused, and a SHA-256
        // of a whole body costs several µs.
        let hash = refusedBodies.isEmpty ? nil : RefusedBodies.hash(data)
        if let hash, let known = refusedBodies.refusal(for: hash) {
            counters.add(.refusedRecognised)
            return await refuse(
                known, body: data, bodyHash: hash, size: data.count, truncated: false, remoteAddress: remoteAddress, start: start,
                receivedAt: receivedAt)
        }
        var delivery: NotificationDelivery
        let verifying = ContinuousClock.now
        switch await NotificationIntake.delivery(from: data, verifier: verifier, receivedAt: receivedAt, remoteAddress: remoteAddress) {
        case .success(let verified):
            metrics.verified(in: .now - verifying)
            delivery = verified
        case .failure(let refused):
            let hash = hash ?? RefusedBodies.hash(data)
            refusedBodies.remember(refused, for: hash)
            return await refuse(
                refused, body: data, bodyHash: hash, size: data.count, truncated: false, remoteAddress: remoteAddress, start: start,
                receivedAt: receivedAt)
        }
        delivery.elapsedMilliseconds = Self.milliseconds(since: start)
        let uuid = delivery.notificationUUID
        var arrival = Arrival(
            receivedAt: receivedAt, outcome: .stored, status: 200, milliseconds: 0, notificationUUID: uuid,
            notificationType: delivery.notificationType, subtype: delivery.subtype, verdict: "verified",
            transactionId: delivery.transactionId ?? delivery.originalTransactionId, remoteAddress: remoteAddress)
        let outcome: RecordOutcome
        let writing = ContinuousClock.now
        do {
            outcome = try await store.record(delivery)
        } catch {
            metrics.storeFailed(.notification)
            return storeFailed(error, arrival: &arrival, start: start)
        }
        let written = ContinuousClock.now
        metrics.committed(in: written - writing)
        metrics.recorded(duplicate: outcome.isDuplicate, environment: delivery.environment, type: delivery.notificationType)
        lastStored.set(written)
        arrival.outcome = outcome.isDuplicate ? .duplicate : .stored
        arrival.deliveryCount = outcome.deliveryCount
        var answer = Response(status: .ok, headers: [:], body: ResponseBody())
        // Stored first: a forward that fails or hangs loses nothing.
        if let forwarder {
            let forward = await forwarder.forward(data, notificationUUID: uuid, deliveryCount: outcome.deliveryCount)
            arrival.forwardResult = forward.summary
            metrics.forwarded(forward)
            if forwarder.configuration.mirrorStatus && forward.mirrored != 200 {
                let status = HTTPResponse.Status(code: forward.mirrored)
                answer = (200...299).contains(forward.mirrored)
                    ? Response(status: status, headers: [:], body: ResponseBody())
                    : Self.error(status, "Stored, but the forward gave \(forward.summary): answered with its status so that it is sent again.")
                arrival.status = forward.mirrored
            }
            let result = ForwardOutcome(
                result: forward.summary, status: forward.status, milliseconds: forward.milliseconds, answeredStatus: arrival.status,
                elapsedMilliseconds: Self.milliseconds(since: start))
            // The notification is stored either way; only the forward's record would be missing.
            try? await store.recordForward(result, delivery: outcome.deliveryId)
        }
        arrival.milliseconds = Self.milliseconds(since: start)
        onArrival(arrival)
        return answer
    }

    private func storeFailed(_ error: any Error, arrival: inout Arrival, start: ContinuousClock.Instant) -> Response {
        arrival.outcome = .storeFailed
        arrival.status = 503
        arrival.detail = "\(error)"
        arrival.milliseconds = Self.milliseconds(since: start)
        onArrival(arrival)
        return Self.error(.serviceUnavailable, "The notification could not be stored; send it again later.")
    }

    private func refuse(
        _ refusal: NotificationIntake.Refused, body: Data, bodyHash: String? = nil, size: Int, truncated: Bool,
        status: HTTPResponse.Status = .badRequest, remoteAddress: String?, start: ContinuousClock.Instant, receivedAt: Date
    ) async -> Response {
        metrics.refused(reason: refusal.reason)
        var entry = RefusedDelivery(
            reason: refusal.reason, detail: refusal.detail, body: body, bodySize: size, truncated: truncated, receivedAt: receivedAt,
            answeredStatus: status.code)
        entry.notificationUUID = refusal.notificationUUID
        entry.notificationType = refusal.notificationType
        entry.remoteAddress = remoteAddress
        entry.elapsedMilliseconds = Self.milliseconds(since: start)
        var arrival = Arrival(
            receivedAt: receivedAt, outcome: .quarantined, status: status.code, milliseconds: 0,
            notificationUUID: refusal.notificationUUID, notificationType: refusal.notificationType, verdict: refusal.reason, detail: refusal.detail, remoteAddress: remoteAddress)
        do {
            if try await keeper.keep(entry, bodyHash: bodyHash ?? RefusedBodies.hash(body)) == .notKept {
                arrival.detail = refusal.detail + " (not kept: the quarantine's writes are at their limit)"
            }
        } catch {
            // Not kept: the sender must try again.
            metrics.storeFailed(.quarantine)
            return storeFailed(error, arrival: &arrival, start: start)
        }
        arrival.milliseconds = Self.milliseconds(since: start)
        onArrival(arrival)
        return Self.error(status, refusal.detail)
    }

    // MARK: Reading

    enum Body {
        case complete(Data)
        case tooLarge(prefix: Data, size: Int)
        case timedOut(prefix: Data)
        case failed(prefix: Data, error: String)
    }

    /// Reads the body, never holding more than the limit: a declared length over it is refused
    /// after reading only the quarantined prefix, and a stream is cut as soon as it passes it.
    /// The read is a task of its own so that `deadlines` can cut it off at `deadline`.
    func read(_ request: Request, deadline: ContinuousClock.Instant) async -> Body {
        let limit = configuration.maxBodyBytes
        let prefixLimit = configuration.quarantinedPrefixBytes
        let declared = request.headers[.contentLength].flatMap { Int($0) }
        let collected = Collected()
        let reader = Task {
            do {
                if let declared, declared > limit {
                    collected.declaredTooLarge(declared)
                    for try await chunk in request.body {
                        collected.append(chunk, keepingAtMost: prefixLimit)
                        if collected.count >= prefixLimit { break }
                    }
                } else {
                    for try await chunk in request.body {
                        collected.append(chunk, keepingAtMost: limit + 1)
                        if collected.count > limit { break }
                    }
                }
            } catch {
                collected.failed("\(error)")
            }
            collected.finish()
        }
        let watched = deadlines.watch(.init(deadline: deadline, body: collected, reader: reader))
        let drainTimeout = configuration.drainTimeout
        let counters = self.counters
        await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                await reader.value
            } onCancel: {
                reader.cancel()
            }
        } onGracefulShutdown: { [deadlines] in
            // A stop waits `drainTimeout` for what is in flight: a body still arriving by half of it
            // is cut then and answered 408, so that its connection closes before the stop gives up.
            Task {
                try? await Task.sleep(for: drainTimeout / 2)
                if deadlines.cut(watched) { counters.add(.readsCutByStop) }
            }
        }
        deadlines.finish(watched)
        let snapshot = collected.snapshot()
        // The deadline first: cutting the read off is what made it fail then.
        if snapshot.cut { return .timedOut(prefix: snapshot.data.prefix(prefixLimit)) }
        if let declared = snapshot.declared { return .tooLarge(prefix: snapshot.data.prefix(prefixLimit), size: declared) }
        if let error = snapshot.error { return .failed(prefix: snapshot.data.prefix(prefixLimit), error: error) }
        if snapshot.seen > limit { return .tooLarge(prefix: snapshot.data.prefix(prefixLimit), size: snapshot.seen) }
        return .complete(snapshot.data)
    }

    /// The bytes read so far, shared with the reading task.
    final class Collected: Sendable {
        struct State {
            var data = Data()
            var seen = 0
            var declared: Int?
            var error: String?
            /// Whichever comes first, the end of the read or the deadline, rules out the other.
            var finished = false
            var cut = false
        }
        private let state = Mutex(State())

        func append(_ chunk: ByteBuffer, keepingAtMost cap: Int) {
            state.withLock { state in
                state.seen += chunk.readableBytes
                let room = cap - state.data.count
                if room > 0 { state.data.append(contentsOf: chunk.readableBytesView.prefix(room)) }
            }
        }

        var count: Int { state.withLock { $0.seen } }

        func declaredTooLarge(_ size: Int) { state.withLock { $0.declared = size } }

        func failed(_ error: String) { state.withLock { $0.error = error } }

        func finish() { state.withLock { if !$0.cut { $0.finished = true } } }

        /// The deadline passed first: the read is about to be cancelled.
        func cut() { state.withLock { if !$0.finished { $0.cut = true } } }

        func snapshot() -> State { state.withLock { $0 } }
    }

    // MARK: Answering

    static func error(_ status: HTTPResponse.Status, _ message: String) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ErrorAnswer.body(message)))
    }

    static func milliseconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    }
}

/// At most `capacity` bodies run at once; the others wait in arrival order.
final class Slots: Sendable {
    private struct State {
        var inUse = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let capacity: Int
    private let state = Mutex(State())

    init(_ capacity: Int) {
        self.capacity = capacity
    }

    var inUse: Int { state.withLock { $0.inUse } }
    var waiting: Int { state.withLock { $0.waiters.count } }

    func run<T: Sendable>(_ body: () async -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.inUse < capacity {
                    state.inUse += 1
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
        let value = await body()
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.inUse -= 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
        return value
    }
}
