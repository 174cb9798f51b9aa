import Foundation

/// How a ``CatalogClient`` reaches its server: one HTTP request at a time, the answer's body read
/// as it arrives (an event stream never ends).
///
/// Two come with the package: ``URLSessionTransport`` (Foundation's URLSession: on Apple
/// platforms, the default, so an app follows a server without SwiftNIO) and, where
/// AsyncHTTPClient builds (Linux), `AsyncHTTPClientTransport` (the default there). Both pass the
/// same contract tests. A transport of the app's own (a proxy, a test double) conforms the same
/// way.
public protocol CatalogTransport: Sendable {
    /// Sends `request` and returns once the answer's head has arrived; its body is read from
    /// ``CatalogResponse/body`` as it comes. Throws for a request that got no answer (no
    /// connection, a timeout, a cancelled task). A redirect to another origin is followed without
    /// the `Authorization` header.
    func send(_ request: CatalogRequest) async throws -> CatalogResponse
}

/// One request of a ``CatalogTransport``.
public struct CatalogRequest: Sendable {
    public var method: String
    public var url: URL
    public var headers: [(name: String, value: String)]
    public var body: Data?
    /// The longest the answer may take to arrive whole; an event stream's is long (the client
    /// watches its silence itself).
    public var timeout: Duration

    public init(method: String, url: URL, headers: [(name: String, value: String)] = [], body: Data? = nil, timeout: Duration) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }

    /// The value of header `name` (any case), if any.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// The answer to a ``CatalogRequest``: its head, and its body as it arrives.
public struct CatalogResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    /// The body's bytes in the pieces they arrived in; reading it on stops the transport from
    /// reading ahead without bound.
    public var body: AsyncThrowingStream<Data, any Error>

    public init(status: Int, headers: [(name: String, value: String)], body: AsyncThrowingStream<Data, any Error>) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of header `name` (any case), if any.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The whole body, or ``TooLarge`` past `limit` bytes.
    public func collect(upTo limit: Int) async throws -> Data {
        var data = Data()
        for try await piece in body {
            guard data.count + piece.count <= limit else { throw TooLarge(limit: limit) }
            data.append(piece)
        }
        return data
    }

    /// A body past the bound its reader set.
    public struct TooLarge: Error, CustomStringConvertible {
        public var limit: Int
        public var description: String { "the server's answer is over \(limit) bytes" }
    }
}

/// An iterator one reader drives at a time, handed to `AsyncThrowingStream(unfolding:)`: the
/// stream then asks for a piece only when its reader wants one.
final class PullBox<Iterator: AsyncIteratorProtocol>: @unchecked Sendable {
    private var iterator: Iterator

    init(_ iterator: Iterator) { self.iterator = iterator }

    func next() async throws -> Iterator.Element? { try await iterator.next() }
}
