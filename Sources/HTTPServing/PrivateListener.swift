import Hummingbird
import Logging
import NIOCore

/// A plain-HTTP listener for what only operators read (metrics, health), kept off a public
/// address: each GET is answered by `respond` with the path asked for.
public struct PrivateListener: Sendable {
    public struct Answer: Sendable {
        public var status: Int
        public var contentType: String
        public var body: [UInt8]

        public init(status: Int, contentType: String, body: [UInt8]) {
            self.status = status
            self.contentType = contentType
            self.body = body
        }
    }

    public let port: Int
    private let services: BoundServices

    public enum Failure: Error, CustomStringConvertible {
        case couldNotBind(host: String, port: Int)

        public var description: String {
            switch self {
            case .couldNotBind(let host, let port): return "cannot listen on \(host):\(port) (in use, or not an address of this machine)"
            }
        }
    }

    public static func start(
        host: String, port: Int, logger: Logger, respond: @escaping @Sendable (_ path: String) async -> Answer
    ) async throws -> PrivateListener {
        let services = await BoundServices.start(logger: logger, [{ onServerRunning in
            Application(
                responder: CallbackResponder<BasicRequestContext> { request, _ in
                    guard request.method == .get || request.method == .head else { return Response(status: .methodNotAllowed) }
                    let answer = await respond(request.uri.path)
                    var headers = HTTPFields()
                    headers[.contentType] = answer.contentType
                    return Response(status: .init(code: answer.status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
                },
                configuration: .init(address: .hostname(host, port: port), serverName: nil), onServerRunning: onServerRunning, logger: logger)
        }])
        guard let bound = services.ports.first, bound > 0 else {
            await services.cancel()
            throw Failure.couldNotBind(host: host, port: port)
        }
        return PrivateListener(port: bound, services: services)
    }

    public func stop() async { await services.cancel() }
}
