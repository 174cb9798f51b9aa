import CatalogStore

/// Why a ``CatalogClient`` stopped. Everything else — a server that cannot be reached, a dropped
/// stream, a 5xx — it retries with backoff, since a device goes offline and comes back.
public enum CatalogClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server URL is not an `http` or `https` URL with a host.
    case invalidServer(String)
    /// The server has no catalogue of this name.
    case unknownCatalog(String)
    /// The server refused the token (or asked for one).
    case unauthorized(String)
    /// The catalogue follows another server in this database.
    case followsAnotherServer(catalog: String, server: String)
    /// The local database failed.
    case store(StoreError)
    /// The server answered something this client cannot read (another program on the port?).
    case unexpectedAnswer(String)

    public var description: String {
        switch self {
        case .invalidServer(let url): "\(url) is not a server URL such as http://127.0.0.1:8080"
        case .unknownCatalog(let name): "the server has no catalogue named \"\(name)\""
        case .unauthorized(let detail): "the server refused the token: \(detail)"
        case .followsAnotherServer(let catalog, let server): "the catalogue \"\(catalog)\" follows \(server) in this database"
        case .store(let error): error.description
        case .unexpectedAnswer(let detail): "the server's answer cannot be read: \(detail)"
        }
    }
}
