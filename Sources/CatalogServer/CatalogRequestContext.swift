import Hummingbird
import NIOCore

/// The request context of `catalog serve`: Hummingbird's basic one plus the client's address,
/// which the event streams' per-client cap counts by.
public struct CatalogRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The address of the client's end of the connection.
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
