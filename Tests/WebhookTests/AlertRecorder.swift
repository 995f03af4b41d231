import Foundation
import HTTPServing
import Hummingbird
import Logging

/// An alert endpoint for tests: keeps every body POSTed to it and answers `status`.
final class AlertRecorder: Sendable {
    let url: URL
    private let server: BoundServices
    private let bodies: AsyncStream<Data>.Continuation
    let received: AsyncStream<Data>

    private init(url: URL, server: BoundServices, bodies: AsyncStream<Data>.Continuation, received: AsyncStream<Data>) {
        self.url = url
        self.server = server
        self.bodies = bodies
        self.received = received
    }

    static func start(status: HTTPResponse.Status = .ok) async throws -> AlertRecorder {
        let (stream, continuation) = AsyncStream<Data>.makeStream()
        var logger = Logger(label: "alert-recorder")
        logger.logLevel = .warning
        let server = await BoundServices.start(logger: logger, [{ onServerRunning in
            Application(
                responder: CallbackResponder<BasicRequestContext> { request, _ in
                    let buffer = try await request.body.collect(upTo: 1 << 20)
                    continuation.yield(Data(buffer.readableBytesView))
                    return Response(status: status)
                },
                configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: nil), onServerRunning: onServerRunning, logger: logger)
        }])
        guard let port = server.ports.first, port > 0 else {
            await server.cancel()
            throw CocoaError(.fileNoSuchFile)
        }
        return AlertRecorder(url: URL(string: "http://127.0.0.1:\(port)/hook")!, server: server, bodies: continuation, received: stream)
    }

    /// The next `count` bodies, as JSON objects, waiting for each to arrive.
    func next(_ count: Int) async -> [[String: Any]] {
        var found: [[String: Any]] = []
        for await body in received {
            found.append((try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:])
            if found.count == count { break }
        }
        return found
    }

    func stop() async {
        bodies.finish()
        await server.cancel()
    }
}
