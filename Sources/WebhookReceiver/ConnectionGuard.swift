import HummingbirdCore
import NIOCore

/// Holds each connection to the receiver's limits before Hummingbird reads a request from it: a
/// peer with `maxConnectionsPerPeer` open has the next one closed, and a request whose head has not
/// arrived within the read timeout of its first byte has its connection closed (a body that
/// stops arriving is answered 408 by the handler at the same deadline, and cut off a little later).
/// It sits after the HTTP decoder, seeing each request's head and end; `FirstByteWatch`, which it
/// puts at the front of the pipeline, tells it when the bytes of the next request begin.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    // Hummingbird's names for the request and response parts, whichever module declares them.
    typealias InboundIn = HTTPConnectionStateHandler.InboundIn
    typealias InboundOut = HTTPConnectionStateHandler.InboundIn
    typealias OutboundIn = HTTPConnectionStateHandler.OutboundIn
    typealias OutboundOut = HTTPConnectionStateHandler.OutboundIn

    private let limits: ConnectionLimits
    private var ip: String?
    private var admitted = false
    /// No request begun: the next byte that arrives starts one.
    private var awaitingRequest = true
    private var headSeen = false
    private var deadline: Scheduled<Void>?

    init(limits: ConnectionLimits) {
        self.limits = limits
    }

    func handlerAdded(context: ChannelHandlerContext) {
        ip = context.channel.remoteAddress?.ipAddress
        guard limits.open(from: ip) else {
            limits.counters.add(.connectionsOverPeerLimit)
            // After the pipeline is set up: closing from inside its set-up is not expected.
            let channel = context.channel
            context.eventLoop.execute { channel.close(promise: nil) }
            return
        }
        admitted = true
        try? context.pipeline.syncOperations.addHandler(FirstByteWatch(guard: self), position: .first)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        if admitted { limits.close(from: ip, connection: ObjectIdentifier(context.channel)) }
        admitted = false
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            headSeen = true
        case .end:
            deadline?.cancel()
            deadline = nil
            headSeen = false
            awaitingRequest = true
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    /// A request answered before its body ended (408, too large, 429) leaves the rest of its body
    /// on the connection: the connection is closed once the answer is written, rather than kept
    /// open for a sender who may trickle that rest in for ever.
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data), headSeen else {
            context.write(data, promise: promise)
            return
        }
        let written = promise ?? context.eventLoop.makePromise()
        let channel = context.channel
        written.futureResult.whenComplete { _ in channel.close(promise: nil) }
        context.write(data, promise: written)
    }

    /// The first byte of a request arrived (of its TLS handshake, on the connection's first request over HTTPS).
    func bytesArrived(context: ChannelHandlerContext) {
        guard awaitingRequest, admitted else { return }
        awaitingRequest = false
        let start = ContinuousClock.now
        limits.requestBegan(on: ObjectIdentifier(context.channel), at: start)
        let channel = context.channel
        // The handler lives on its channel's event loop, and so do its timers.
        let loop = context.eventLoop.assumeIsolated()
        deadline = loop.scheduleTask(in: Self.timeAmount(limits.readTimeout)) { [self] in
            guard !headSeen else {
                deadline = loop.scheduleTask(in: Self.timeAmount(limits.cutOffGrace)) { [self] in
                    limits.counters.add(.bodiesCutOff)
                    deadline = nil
                    channel.close(promise: nil)
                }
                return
            }
            limits.counters.add(.headerTimeouts)
            deadline = nil
            channel.close(promise: nil)
        }
    }

    static func timeAmount(_ duration: Duration) -> TimeAmount {
        .nanoseconds(duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }
}

/// First in the pipeline: tells the guard when bytes arrive, and passes them on untouched.
final class FirstByteWatch: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let guardHandler: ConnectionGuard
    private var guardContext: ChannelHandlerContext?

    init(guard guardHandler: ConnectionGuard) {
        self.guardHandler = guardHandler
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guardContext = try? context.pipeline.syncOperations.context(handler: guardHandler)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        guardContext = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if let guardContext { guardHandler.bytesArrived(context: guardContext) }
        context.fireChannelRead(data)
    }
}
