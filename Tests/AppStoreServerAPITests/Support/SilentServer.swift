import Foundation
import NIOCore
import NIOPosix

/// A loopback TCP server that accepts every connection and never answers (or, given `answer`,
/// writes it once when the request arrives and then goes quiet): a host that hangs.
final class SilentServer: Sendable {
    let url: URL
    /// One element per accepted connection, as it is accepted.
    let connections: AsyncStream<Void>
    private let channel: any Channel

    private init(url: URL, connections: AsyncStream<Void>, channel: any Channel) {
        self.url = url
        self.connections = connections
        self.channel = channel
    }

    static func start(answer: String? = nil) async throws -> SilentServer {
        let (connections, accepted) = AsyncStream<Void>.makeStream()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                accepted.yield()
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(AnswerOnce(answer))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = channel.localAddress?.port ?? 0
        return SilentServer(url: URL(string: "http://127.0.0.1:\(port)")!, connections: connections, channel: channel)
    }

    func stop() async {
        try? await channel.close()
    }
}

/// Writes its text (if any) at the first bytes of a request, then reads and ignores the rest.
private final class AnswerOnce: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let answer: String?
    private var answered = false

    init(_ answer: String?) { self.answer = answer }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let answer, !answered else { return }
        answered = true
        context.writeAndFlush(NIOAny(context.channel.allocator.buffer(string: answer)), promise: nil)
    }
}
