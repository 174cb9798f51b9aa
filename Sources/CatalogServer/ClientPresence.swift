import NIOConcurrencyHelpers
import NIOCore

/// Whether the client of one connection is still there, so that work done only for its answer —
/// a layout, a picture, a page of history — stops when it hangs up.
///
/// ``ClientPresenceHandler`` marks it gone when the connection's input ends (the client closed
/// its end, as an HTTP/1.1 client does only when it no longer wants the answer — Go's servers
/// cancel a request's context on the same sign) or the connection closes. The requests of a
/// connection come one after another, so one request at a time watches it
/// (``whileClientStays(_:)``).
final class ClientPresence: Sendable {
    private struct State {
        var gone = false
        /// Cancels the request being answered, while it runs.
        var cancel: (@Sendable () -> Void)?
    }

    private let state = NIOLockedValueBox(State())

    var isGone: Bool { state.withLockedValue(\.gone) }

    /// The client has gone: the request being answered is cancelled.
    func clientLeft() {
        let cancel: (@Sendable () -> Void)? = state.withLockedValue { state in
            state.gone = true
            defer { state.cancel = nil }
            return state.cancel
        }
        cancel?()
    }

    /// `body`'s result, `body` cancelled (`CancellationError`, or whatever it throws when
    /// cancelled) if the client goes before it ends. Work that other requests share goes on
    /// while any of them waits (``RevisionCache``).
    func whileClientStays<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let task = Task { try await body() }
        let goneAlready = state.withLockedValue { state in
            if state.gone { return true }
            state.cancel = { task.cancel() }
            return false
        }
        if goneAlready { task.cancel() }
        defer { state.withLockedValue { $0.cancel = nil } }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }
}

/// Tells a connection's ``ClientPresence`` when its client goes: at the end of its input (the
/// server allows half-closed connections, so a client's close arrives as that) or when the
/// connection closes.
final class ClientPresenceHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    let presence = ClientPresence()

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, case .inputClosed = event { presence.clientLeft() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        presence.clientLeft()
        context.fireChannelInactive()
    }

    /// The presence of `channel`'s client, when its pipeline has this handler (a server
    /// `CatalogServer.application` built; not the test framework's in-process router).
    static func presence(of channel: any Channel) async -> ClientPresence? {
        try? await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.handler(type: ClientPresenceHandler.self).presence
        }.get()
    }
}
