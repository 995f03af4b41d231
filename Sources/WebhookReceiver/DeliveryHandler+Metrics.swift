import HTTPTypes
import Hummingbird
import NIOCore

extension DeliveryHandler {
    /// The counters and what is held right now, for a Prometheus scrape.
    func metrics() -> Response {
        let text = counters.exposition(gauges: [
            ("iapdesk_receiver_open_connections", "Connections open now.", connections.openConnections),
            ("iapdesk_receiver_reading_bodies", "Requests whose body is being read (holding no slot).", connections.reading),
            ("iapdesk_receiver_requests_in_flight", "Requests holding a processing slot.", slots.inUse),
            ("iapdesk_receiver_requests_waiting", "Requests waiting for a processing slot.", slots.waiting),
        ])
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4"], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
