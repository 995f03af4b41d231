import HTTPTypes
import Hummingbird
import NIOCore

extension DeliveryHandler {
    /// The metrics, with the gauges read now, for a Prometheus scrape (404 when metrics are off).
    func exposition() -> Response {
        guard let exposition = metrics.exposition else {
            return Self.error(.notFound, "Nothing here: metrics are off.")
        }
        metrics.openConnections.record(connections.openConnections)
        metrics.readingBodies.record(connections.reading)
        metrics.inFlight.record(slots.inUse)
        metrics.waiting.record(slots.waiting)
        metrics.storeUp.record(guarded.accepting ? 1 : 0)
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: exposition.text())))
    }

    func health() async -> Response {
        await guarded.confirmWritable()
        return HealthCheck.answer(guarded, lastStored: lastStored.secondsAgo)
    }

    /// What the metrics address answers: the metrics and /healthz, nothing else.
    func respondPrivately(to request: Request) async -> Response {
        if request.uri.path == HealthCheck.path, request.method == .get || request.method == .head { return await health() }
        if request.uri.path == configuration.metricsPath ?? "/metrics", request.method == .get { return exposition() }
        return Self.error(.notFound, "Nothing here: this address serves \(configuration.metricsPath ?? "/metrics") and \(HealthCheck.path).")
    }
}
