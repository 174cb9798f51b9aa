import Hummingbird
import NIOCore

/// The request context of `catalog serve`: Hummingbird's basic one plus the client's address,
/// which the event streams' per-client cap counts by, and its connection, whose
/// ``ClientPresence`` stops work done for a client that has gone.
package struct CatalogRequestContext: RequestContext, RemoteAddressRequestContext {
    package var coreContext: CoreRequestContextStorage
    /// The address of the client's end of the connection.
    package let remoteAddress: SocketAddress?
    let channel: any Channel

    package init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        channel = source.channel
    }

    /// `body`'s result, `body` cancelled if the client hangs up before it ends
    /// (``ClientPresence``).
    func whileClientStays<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        guard let presence = await ClientPresenceHandler.presence(of: channel) else { return try await body() }
        do {
            return try await presence.whileClientStays(body)
        } catch is CancellationError where presence.isGone {
            // Never read; counted in the metrics as nginx counts an abandoned request.
            throw Problem(status: .init(code: 499, reasonPhrase: "Client Closed Request"), kind: "client-gone",
                          detail: "the client closed its connection before the answer was ready")
        }
    }
}
