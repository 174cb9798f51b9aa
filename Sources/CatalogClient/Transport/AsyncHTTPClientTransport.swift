#if canImport(AsyncHTTPClient)
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// A ``CatalogTransport`` of AsyncHTTPClient (SwiftNIO): the default on Linux.
///
/// The followed catalogues' stream takes one of the connections `http` keeps per host
/// (`concurrentHTTP1ConnectionsPerHostSoftLimit`; the shared client keeps eight), the writes
/// others: give it at least two.
public struct AsyncHTTPClientTransport: CatalogTransport {
    public let http: HTTPClient

    public init(_ http: HTTPClient = .shared) {
        self.http = http
    }

    public func send(_ request: CatalogRequest) async throws -> CatalogResponse {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        let (seconds, attoseconds) = request.timeout.components
        let timeout = TimeAmount.nanoseconds(seconds > Int64.max / 1_000_000_000 ? Int64.max : seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        let response = try await http.execute(outgoing, timeout: timeout)
        let pieces = PullBox(response.body.makeAsyncIterator())
        return CatalogResponse(status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) },
                               body: AsyncThrowingStream(unfolding: { try await pieces.next().map { Data($0.readableBytesView) } }))
    }
}
#endif
