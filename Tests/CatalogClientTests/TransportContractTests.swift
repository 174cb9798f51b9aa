import AsyncHTTPClient
import CatalogModel
import CatalogStore
import CatalogTestSupport
import Foundation
@testable import CatalogClient
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import HummingbirdTesting
import Testing

/// The transports a client talks through, each held to one contract: following and writing
/// against a live server, a stream of many catalogues through two connections, a refused token
/// refreshed, a redirect that loses the token, a 200 that is not an event stream, and a line
/// that never ends cut at its bound (the transport stops reading a body its reader dropped).
@Suite struct TransportContractTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case asyncHTTPClient, urlSession
        var testDescription: String { rawValue }

        /// A transport of this kind; `connections`, when given, is its limit per host (the
        /// client of AsyncHTTPClient made for it is shut down by `body`'s end).
        func with<T: Sendable>(connections: Int? = nil, _ body: (any CatalogTransport) async throws -> T) async throws -> T {
            switch self {
            case .asyncHTTPClient:
                guard let connections else { return try await body(AsyncHTTPClientTransport()) }
                var configuration = HTTPClient.Configuration()
                configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connections)
                let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
                do {
                    let result = try await body(AsyncHTTPClientTransport(http))
                    try await http.shutdown()
                    return result
                } catch {
                    try? await http.shutdown()
                    throw error
                }
            case .urlSession:
                let configuration = URLSessionConfiguration.default
                if let connections { configuration.httpMaximumConnectionsPerHost = connections }
                return try await body(URLSessionTransport(configuration: configuration))
            }
        }
    }

    @Test(arguments: Kind.allCases)
    func followsAndWrites(kind: Kind) async throws {
        try await FollowingTests.servedShelves { server, device, url in
            try await kind.with { transport in
                let client = try CatalogClient(store: device, server: url, transport: transport, retryingAfter: .milliseconds(20), atMost: .milliseconds(200))
                let task = Task { try await client.run(following: ["shelf"]) }
                defer { task.cancel() }
                try await waitUntil("the first snapshot") { try FollowingTests.same(device, server) }
                try await device.move(item: "b0", toSection: "c", index: 0, in: "shelf")
                try await waitUntil("the write on the server") { try client.outbox().isEmpty && FollowingTests.same(device, server) }
                try await server.move(item: "a0", toSection: "b", index: 0, in: "shelf")
                try await waitUntil("the server's write on the device") { try FollowingTests.same(device, server) }
                #expect(try device.catalog(named: "shelf").sections.map { $0.items.map(\.id) } == [["a1", "a2"], ["a0"], ["b0"]])
                task.cancel()
                _ = await task.result
            }
        }
    }

    /// Forty catalogues through a transport of two connections: one carries their stream, the
    /// other the writes.
    @Test(arguments: Kind.allCases)
    func manyCataloguesThroughTwoConnections(kind: Kind) async throws {
        try await kind.with(connections: 2) { transport in try await ManyCataloguesTests.followMany(40, transport: transport) }
    }

    /// A redirect to another origin is followed without the token.
    @Test(arguments: Kind.allCases)
    func aRedirectToAnotherHostGetsNoToken(kind: Kind) async throws {
        let seen = Seen()
        let elsewhere = Router()
        elsewhere.post("/events") { request, _ in
            seen.add(request.headers[.authorization])
            return Response(status: .ok, headers: [.contentType: "text/event-stream"], body: ResponseBody(byteBuffer: ByteBuffer(string: ": nothing\n\n")))
        }
        let other = Application(router: elsewhere, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await other.test(.live) { otherClient in
            let otherPort = try #require(otherClient.port)
            let router = Router()
            router.post("/events") { request, _ in
                seen.addOrigin(request.headers[.authorization])
                return Response(status: .temporaryRedirect, headers: [.location: "http://127.0.0.1:\(otherPort)/events"])
            }
            let hostile = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
            try await hostile.test(.live) { client in
                let url = URL(string: "http://127.0.0.1:\(try #require(client.port))")!
                let (device, _) = try FollowingTests.deviceStore()
                try await kind.with { transport in
                    let following = try CatalogClient(store: device, server: url, token: "s3cret", transport: transport,
                                                      retryingAfter: .milliseconds(10), atMost: .milliseconds(50))
                    let task = Task { try await following.run(following: ["shelf"]) }
                    try await waitUntil("the redirected stream (\(seen.all.count))") { seen.all.count >= 2 }
                    task.cancel()
                    _ = await task.result
                }
                #expect(seen.all.allSatisfy { $0 == nil }, "\(seen.all)")
                #expect(seen.origin.allSatisfy { $0 == "Bearer s3cret" } && !seen.origin.isEmpty, "\(seen.origin)")
            }
        }
    }

    /// A 200 whose body is not an event stream is not read; a line that never ends is cut at
    /// the bound, and the transport stops reading the body dropped.
    @Test(arguments: Kind.allCases)
    func whatIsNotAnEventStreamIsNotTakenIn(kind: Kind) async throws {
        let asked = HostileServerTests.Asked()
        let router = Router()
        let page = ByteBuffer(string: HostileServerTests.labelled(HostileServerTests.snapshot(at: 3)))
        router.post("/events") { request, _ in
            asked.once()
            if asked.times % 2 == 1 {
                return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: ResponseBody(byteBuffer: page))
            }
            let chunk = ByteBuffer(string: String(repeating: "x", count: 1 << 16))
            return Response(status: .ok, headers: [.contentType: "text/event-stream"], body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: "catalog: shelf\nevent: snapshot\nid: 1\ndata: "))
                for _ in 0..<((64 << 20) / chunk.readableBytes) { try await writer.write(chunk) }
                try await writer.finish(nil)
            })
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let url = URL(string: "http://127.0.0.1:\(try #require(client.port))")!
            let (device, _) = try FollowingTests.deviceStore()
            try await kind.with { transport in
                let following = try CatalogClient(store: device, server: url, transport: transport, retryingAfter: .milliseconds(10),
                                                  atMost: .milliseconds(50), maxEventBytes: 1 << 20)
                let task = Task { try await following.run(following: ["shelf"]) }
                try await waitUntil("four connections (\(asked.times))") { asked.times >= 4 }
                task.cancel()
                _ = await task.result
            }
            #expect(throws: StoreError.unknownCatalog("shelf")) { try device.catalog(named: "shelf") }
        }
    }

    final class Seen: @unchecked Sendable {
        private let lock = NSLock()
        private var headers: [String?] = []
        private var first: [String?] = []
        func add(_ value: String?) { lock.withLock { headers.append(value) } }
        func addOrigin(_ value: String?) { lock.withLock { first.append(value) } }
        var all: [String?] { lock.withLock { headers } }
        var origin: [String?] { lock.withLock { first } }
    }
}
