import CatalogDiff
import CatalogModel
import CatalogPostgres
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

/// `GET /health` and `GET /ready` for a load balancer, and a PostgreSQL server that goes away
/// and comes back while an instance serves: 503s (problem documents, no SQL) while it is gone,
/// readiness says so, event streams end, and afterwards reads and writes resume and a stream
/// resumed with its last id misses nothing.
@Suite struct ReadinessTests {
    @Test(arguments: Backend.available)
    func healthAndReadinessNeedNoToken(backend: Backend) async throws {
        try await ServerTests.withServer(on: backend, ServerConfiguration(port: 0, token: "s3cret", protectReads: true)) { client, _ in
            try await client.execute(uri: "/health", method: .get) { response in
                #expect(response.status == .ok && String(buffer: response.body) == #"{"status":"alive"}"#)
            }
            try await client.execute(uri: "/ready", method: .get) { response in
                #expect(response.status == .ok && String(buffer: response.body) == #"{"status":"ready"}"#)
            }
            try await client.execute(uri: "/catalogs", method: .get) { #expect($0.status == .unauthorized) }
        }
    }

    @Test(.enabled(if: TestPostgres.url != nil, "needs PostgreSQL"))
    func aPostgresServerGoneAndBack() async throws {
        let (url, folder) = try #require(TestPostgres.privateCluster())
        defer { TestPostgres.removeCluster(folder) }
        let store = try await PostgresCatalogStore.open(url: url, maximumConnections: 4)
        defer { store.close() }
        try await store.replace([(ServerTests.shelves, nil)], progress: nil)
        try await TwoInstanceTests.live(store) { client in
            #expect(try await TwoInstanceTests.move(client, "b0", to: "c") == 200)
            let port = try #require(client.port)
            let stream = try RawConnection(port: port)
            stream.openEventStream("/catalogs/shelf/events")
            #expect(await stream.awaitEvents(1).first?.id == "2")
            TestPostgres.stopCluster(folder)
            // Not ready within a few checks; requests answered 503 rather than left waiting.
            var ready = 200
            for _ in 0..<600 where ready == 200 {
                try await Task.sleep(for: .milliseconds(100))
                ready = try await client.execute(uri: "/ready", method: .get) { $0.status.code }
            }
            #expect(ready == 503)
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            try await client.execute(uri: "/catalogs/shelf/moves", method: .post, headers: headers,
                                     body: ByteBuffer(string: #"{"item": "b0", "toSection": "b"}"#)) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(response.headers[.contentType] == "application/problem+json")
                #expect(!String(buffer: response.body).contains("SELECT") && !String(buffer: response.body).contains("UPDATE"))
            }
            try await client.execute(uri: "/catalogs/shelf", method: .get) { #expect($0.status == .serviceUnavailable) }
            #expect(TestPostgres.resumeCluster(folder))
            // Ready again, and writes land.
            for _ in 0..<600 where ready != 200 {
                try await Task.sleep(for: .milliseconds(100))
                ready = try await client.execute(uri: "/ready", method: .get) { $0.status.code }
            }
            #expect(ready == 200)
            var status = 0
            // (The pool may wait between attempts to connect: up to a minute here.)
            for _ in 0..<600 where status != 200 {
                status = try await TwoInstanceTests.move(client, "b0", to: "b")
                if status != 200 { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(status == 200)
            try await client.execute(uri: "/catalogs/shelf/changes?since=1", method: .get) { response in
                #expect(response.status == .ok)
                let changeset = try JSONDecoder().decode(Changeset.self, from: Data(buffer: response.body))
                #expect(changeset.fromRevision == 1 && changeset.toRevision == 3)
            }
            // The event stream either went on (then it brings revision 3) or ended with its
            // database (then, resumed with its last id, it does): nothing missed either way.
            var next = await stream.awaitEvents(seconds: 60) { $0.count > 1 }.dropFirst().first
            if next == nil {
                var closed = false
                for _ in 0..<600 where !closed { closed = await stream.drainUntilClosed(quietFor: 0.1) }
                #expect(closed, "the stream neither went on nor ended")
                let resumed = try RawConnection(port: port)
                resumed.openEventStream("/catalogs/shelf/events", headers: ["Last-Event-ID": "2"])
                next = await resumed.awaitEvents(1).first
            }
            let event = try #require(next)
            #expect(event.event == "changes" && event.id == "3")
            let changeset = try JSONDecoder().decode(Changeset.self, from: Data(event.data.utf8))
            #expect(changeset.fromRevision == 2 && changeset.toRevision == 3)
        }
    }
}
