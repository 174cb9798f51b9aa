import HummingbirdCore
import NIOCore
import NIOHTTPTypes

/// Closes a connection whose client is too slow to send a request: one that has not sent a whole
/// request head within `headTimeout` of connecting or of its last answer (a client trickling its
/// headers a byte at a time, or a keep-alive connection left idle), or the rest of its request
/// within `bodyTimeout` of the head; or one that leaves the server's writes unread for
/// `stallTimeout` (its socket buffers full: an event stream it no longer reads). Otherwise,
/// while the server works on an answer nothing is timed, so a long answer — a stream of events
/// to a client that reads it — is never cut.
///
/// Without it, a few hundred such connections hold their memory and file descriptors for as long
/// as their clients like. An answer that says `Connection: close` (a refused event stream) closes
/// its connection once written, as HTTP/1.1 means it to.
final class RequestDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let headTimeout: TimeAmount
    private let bodyTimeout: TimeAmount
    private let stallTimeout: TimeAmount
    private var deadline: Scheduled<Void>?
    private var stall: Scheduled<Void>?
    /// The answer being written said `Connection: close`.
    private var closing = false

    init(headTimeout: TimeAmount, bodyTimeout: TimeAmount, stallTimeout: TimeAmount) {
        self.headTimeout = headTimeout
        self.bodyTimeout = bodyTimeout
        self.stallTimeout = stallTimeout
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        stall?.cancel()
        stall = nil
        if !context.channel.isWritable {
            let channel = context.channel
            stall = context.eventLoop.scheduleTask(in: stallTimeout) { channel.close(promise: nil) }
        }
        context.fireChannelWritabilityChanged()
    }

    func handlerAdded(context: ChannelHandlerContext) {
        arm(headTimeout, context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        disarm()
        disarmStall()
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        disarmStall()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: arm(bodyTimeout, context: context)
        case .body: break
        case .end: disarm()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            closing = head.headerFields[.connection]?.lowercased() == "close"
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            guard closing else {
                arm(headTimeout, context: context)
                context.write(data, promise: promise)
                return
            }
            let channel = context.channel
            let written = promise ?? context.eventLoop.makePromise()
            written.futureResult.whenComplete { _ in channel.close(promise: nil) }
            context.writeAndFlush(data, promise: written)
        }
    }

    private func arm(_ timeout: TimeAmount, context: ChannelHandlerContext) {
        deadline?.cancel()
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
    }

    private func disarm() {
        deadline?.cancel()
        deadline = nil
    }

    private func disarmStall() {
        stall?.cancel()
        stall = nil
    }
}
