import CatalogDiff
import CatalogModel
import CatalogServer
import CatalogStore
import CatalogTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Two servers on one database (two `catalog serve` instances behind a balancer): a write
/// acknowledged by one is read at once through the other, and reaches the other's event streams
/// revision by revision; `If-Match` and conflicts hold across them.
@Suite struct TwoInstanceTests {
    static func live<Store: CatalogDatabase>(_ store: Store, _ test: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let app = CatalogServer.application(store: store, configuration: ServerConfiguration(port: 0, headTimeout: 300))
        try await app.test(.live) { client in try await test(client) }
    }

    static func open<A: CatalogDatabase, B: CatalogDatabase>(_ a: A, _ b: B,
        _ test: @escaping @Sendable (any TestClientProtocol, any TestClientProtocol) async throws -> Void) async throws {
        try await live(a) { first in try await live(b) { second in try await test(first, second) } }
    }

    static func move(_ client: any TestClientProtocol, _ item: String, to section: String, ifMatch: Int? = nil) async throws -> Int {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        if let ifMatch { headers[.ifMatch] = "\"\(ifMatch)\"" }
        return try await client.execute(uri: "/catalogs/shelf/moves", method: .post, headers: headers,
                                        body: ByteBuffer(string: #"{"item": "\#(item)", "toSection": "\#(section)", "index": 0}"#)) { $0.status.code }
    }

    @Test(arguments: Backend.available)
    func writesThroughOneAreSeenThroughTheOther(backend: Backend) async throws {
        try await withTwoHandles(backend) { a, b in
            try await a.replace([(ServerTests.shelves, nil)], progress: nil)
            try await Self.open(a, b) { first, second in
                let port = try #require(second.port)
                let stream = try RawConnection(port: port)
                stream.openEventStream("/catalogs/shelf/events", headers: ["Last-Event-ID": "1"])
                var expected = [String]()
                for n in 0..<6 {
                    let client = n % 2 == 0 ? first : second
                    #expect(try await Self.move(client, "b0", to: n % 2 == 0 ? "c" : "b") == 200)
                    // Read through the other at once: the write is there.
                    let other = n % 2 == 0 ? second : first
                    try await other.execute(uri: "/catalogs/shelf", method: .get) { response in
                        #expect(response.headers[.eTag] == "\"\(n + 2)\"")
                    }
                    expected.append(String(n + 2))
                }
                // A stale If-Match through one after a write through the other: 412, nothing written.
                #expect(try await Self.move(first, "a0", to: "c", ifMatch: 3) == 412)
                // A full shelf refuses through either.
                #expect(try await Self.move(second, "b0", to: "a") == 409)
                let events = await stream.awaitEvents { $0.last?.id == "7" }
                var revision = 1
                for event in events {
                    #expect(event.event == "changes")
                    let changeset = try JSONDecoder().decode(Changeset.self, from: Data(event.data.utf8))
                    #expect(changeset.fromRevision == revision)
                    revision = changeset.toRevision ?? revision
                }
                #expect(revision == 7, "\(stream.text)")
            }
        }
    }
}
