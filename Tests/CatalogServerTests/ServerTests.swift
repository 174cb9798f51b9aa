import CatalogModel
import CatalogPostgres
import CatalogServer
import CatalogStore
import CatalogTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// The HTTP API over a real server on an ephemeral loopback port: every endpoint, and every error
/// status as an RFC 9457 problem document.
@Suite struct ServerTests {
    /// Shelves of capacity 2: a full (a0, a1), b with room (b0), c empty.
    static let shelves = Catalog(name: "shelf", sections: [
        Section(id: "a", kind: .bookshelf, capacity: 2, items: books("a", 2)),
        Section(id: "b", kind: .bookshelf, capacity: 2, items: books("b", 1)),
        Section(id: "c", kind: .bookshelf, capacity: 2),
    ])

    static func books(_ prefix: String, _ count: Int) -> [Item] {
        (0..<count).map { Item(id: "\(prefix)\($0)", content: .book(Book(title: "\(prefix) \($0)", cover: "\(prefix)\($0)"))) }
    }

    static func withServer(_ configuration: ServerConfiguration = ServerConfiguration(port: 0),
                           _ test: @escaping @Sendable (any TestClientProtocol, CatalogStore) async throws -> Void) async throws {
        let store = try CatalogStore.inMemory()
        try store.replace(shelves)
        var configuration = configuration
        configuration.port = 0
        // The test client keeps one connection alive between its requests, and a machine whose
        // cores are busy can leave it idle past the server's head timeout (10 s), which then
        // closes it. Tests of the timeouts set their own; the others get five minutes.
        if configuration.headTimeout == ServerConfiguration().headTimeout { configuration.headTimeout = 300 }
        let app = CatalogServer.application(store: store, configuration: configuration)
        try await app.test(.live) { client in try await test(client, store) }
    }

    /// A live server on `backend` (SQLite in memory, or a new PostgreSQL database) holding
    /// ``shelves``.
    static func withServer(on backend: Backend, _ configuration: ServerConfiguration = ServerConfiguration(port: 0),
                           _ test: @escaping @Sendable (any TestClientProtocol, any CatalogDatabase) async throws -> Void) async throws {
        try await withDatabase(backend) { store in
            try await store.replace([(shelves, nil)], progress: nil)
            try await serve(store, configuration, test)
        }
    }

    private static func serve<Store: CatalogDatabase>(_ store: Store, _ configuration: ServerConfiguration,
                                                      _ test: @escaping @Sendable (any TestClientProtocol, any CatalogDatabase) async throws -> Void) async throws {
        var configuration = configuration
        configuration.port = 0
        if configuration.headTimeout == ServerConfiguration().headTimeout { configuration.headTimeout = 300 }
        let app = CatalogServer.application(store: store, configuration: configuration)
        try await app.test(.live) { client in try await test(client, store) }
    }

    static func json(_ body: ByteBuffer) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(body.readableBytesView), options: [.fragmentsAllowed])
    }

    static func problem(_ response: TestResponse, status: Int, kind: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(response.status.code == status, sourceLocation: sourceLocation)
        #expect(response.headers[.contentType] == "application/problem+json", sourceLocation: sourceLocation)
        let object = try #require(try json(response.body) as? [String: Any], sourceLocation: sourceLocation)
        #expect(object["type"] as? String == "https://catalogkit.dev/problems/\(kind)", sourceLocation: sourceLocation)
        #expect(object["status"] as? Int == status, sourceLocation: sourceLocation)
        #expect((object["title"] as? String)?.isEmpty == false && (object["detail"] as? String)?.isEmpty == false,
                sourceLocation: sourceLocation)
    }

    static func body(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    @Test(arguments: Backend.available)
    func readsSnapshotsWithETags(backend: Backend) async throws {
        try await Self.withServer(on: backend) { client, _ in
            try await client.execute(uri: "/catalogs", method: .get) { response in
                #expect(response.status == .ok)
                let list = try #require(try Self.json(response.body) as? [[String: Any]])
                #expect(list.first?["name"] as? String == "shelf" && list.first?["items"] as? Int == 3)
            }
            try await client.execute(uri: "/catalogs/shelf", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.eTag] == "\"1\"")
                let object = try #require(try Self.json(response.body) as? [String: Any])
                #expect(object["revision"] as? Int == 1 && (object["sections"] as? [Any])?.count == 3)
            }
            try await client.execute(uri: "/catalogs/shelf", method: .get, headers: [.ifNoneMatch: "\"1\""]) { response in
                #expect(response.status == .notModified)
                #expect(response.body.readableBytes == 0)
            }
            try await client.execute(uri: "/catalogs/nope", method: .get) { try Self.problem($0, status: 404, kind: "unknown-catalog") }
            try await client.execute(uri: "/nowhere", method: .get) { try Self.problem($0, status: 404, kind: "http-404") }
        }
    }

    @Test(arguments: Backend.available)
    func movesAndTheirErrors(backend: Backend) async throws {
        try await Self.withServer(on: backend) { client, store in
            try await client.execute(uri: "/catalogs/shelf/moves", method: .post,
                                     headers: [.contentType: "application/json"], body: Self.body(#"{"item": "a0", "toSection": "b", "index": 0}"#)) { response in
                #expect(response.status == .ok)
                let object = try #require(try Self.json(response.body) as? [String: Any])
                #expect(object["revision"] as? Int == 2)
                let stages = try #require((object["changeset"] as? [String: Any])?["stages"] as? [[String: Any]])
                #expect(stages.count == 1)
            }
            // b is now full.
            try await client.execute(uri: "/catalogs/shelf/moves", method: .post,
                                     headers: [.contentType: "application/json"], body: Self.body(#"{"item": "a1", "toSection": "b"}"#)) { try Self.problem($0, status: 409, kind: "shelf-full") }
            try await client.execute(uri: "/catalogs/shelf/moves", method: .post,
                                     headers: [.contentType: "application/json"], body: Self.body(#"{"item": "ghost", "toSection": "c", "index": 0}"#)) { response in
                try Self.problem(response, status: 422, kind: "rejected-operation")
                let object = try Self.json(response.body) as? [String: Any]
                #expect(object?["path"] as? String == "operations[0]")
            }
            try await client.execute(uri: "/catalogs/shelf/moves", method: .post, headers: [.contentType: "application/json", .ifMatch: "\"1\""],
                                     body: Self.body(#"{"item": "a1", "toSection": "c", "index": 0}"#)) { try Self.problem($0, status: 412, kind: "precondition-failed") }
            try await client.execute(uri: "/catalogs/shelf/moves", method: .post,
                                     headers: [.contentType: "application/json"], body: Self.body(#"{"item": "a1", "toSection": "c", "index": 0, "baseRevision": 1}"#)) { try Self.problem($0, status: 409, kind: "stale-revision") }
            try await client.execute(uri: "/catalogs/shelf/moves", method: .post,
                                     headers: [.contentType: "application/json"], body: Self.body(#"{"item": "a1", "toSection": "c", "policy": "shove"}"#)) { try Self.problem($0, status: 422, kind: "invalid-body") }
            try await client.execute(uri: "/catalogs/shelf/moves", method: .post, headers: [.contentType: "application/json"], body: Self.body("{")) { try Self.problem($0, status: 400, kind: "malformed-body") }
            // A body of the wrong shape names the offending field (a misspelt key is refused, not
            // ignored: the book would otherwise go to the end of the shelf).
            for (body, path) in [(#"{"item": "a1", "toSection": "c", "idx": 0}"#, "idx"),
                                 (#"{"toSection": "c"}"#, "item"),
                                 (#"{"item": "", "toSection": "c"}"#, "item"),
                                 (#"{"item": "a1", "toSection": "c", "index": "0"}"#, "index"),
                                 (#"{"item": "a1", "toSection": "c", "baseRevision": 1.5}"#, "baseRevision"),
                                 (#"["a1", "c"]"#, nil)] {
                try await client.execute(uri: "/catalogs/shelf/moves", method: .post, headers: [.contentType: "application/json"], body: Self.body(body)) { response in
                    try Self.problem(response, status: 422, kind: "invalid-body")
                    let object = try Self.json(response.body) as? [String: Any]
                    #expect(object?["path"] as? String == path, "\(body)")
                }
            }
            try await client.execute(uri: "/catalogs/nope/moves", method: .post,
                                     headers: [.contentType: "application/json"], body: Self.body(#"{"item": "a1", "toSection": "c", "index": 0}"#)) { try Self.problem($0, status: 404, kind: "unknown-catalog") }
            #expect(try await store.revision(of: "shelf") == 2, "refused writes change nothing")
        }
    }

    @Test(arguments: Backend.available)
    func batchesAndChanges(backend: Backend) async throws {
        try await Self.withServer(on: backend) { client, _ in
            try await client.execute(uri: "/catalogs/shelf/batches", method: .post, headers: [.contentType: "application/json", .ifMatch: "\"1\""], body: Self.body(#"""
                {"operations": [{"op": "moveItem", "id": "a1", "toSection": "c", "index": 0},
                                {"op": "updateSection", "id": "c", "fields": {"title": "Favourites"}}]}
                """#)) { response in
                #expect(response.status == .ok)
                let object = try Self.json(response.body) as? [String: Any]
                #expect(object?["revision"] as? Int == 2)
            }
            try await client.execute(uri: "/catalogs/shelf/batches", method: .post, headers: [.contentType: "application/json"], body: Self.body(#"{"operations": [{"op": "teleport"}]}"#)) { response in
                try Self.problem(response, status: 422, kind: "invalid-body")
                let object = try Self.json(response.body) as? [String: Any]
                #expect(object?["path"] as? String == "operations[0].op")
            }
            try await client.execute(uri: "/catalogs/shelf/batches", method: .post, headers: [.contentType: "application/json"], body: Self.body("[1,")) { try Self.problem($0, status: 400, kind: "malformed-body") }
            try await client.execute(uri: "/catalogs/shelf/changes?since=1", method: .get) { response in
                #expect(response.status == .ok)
                let object = try #require(try Self.json(response.body) as? [String: Any])
                #expect(object["fromRevision"] as? Int == 1 && object["toRevision"] as? Int == 2)
            }
            try await client.execute(uri: "/catalogs/shelf/changes", method: .get) { try Self.problem($0, status: 400, kind: "missing-parameter") }
            try await client.execute(uri: "/catalogs/shelf/changes?since=x", method: .get) { try Self.problem($0, status: 400, kind: "invalid-parameter") }
            try await client.execute(uri: "/catalogs/shelf/changes?since=9", method: .get) { try Self.problem($0, status: 400, kind: "revision-not-reached") }
        }
    }

    /// A batch whose body is larger than a move's limit is read under the body permit (one at a
    /// time) rather than at once: applied as a small one is, and refused as a small one is.
    @Test(arguments: Backend.available)
    func largeBatchesAreReadUnderTheBodyPermit(backend: Backend) async throws {
        try await Self.withServer(on: backend) { client, _ in
            let operations = (0..<1_500).map { #"{"op": "updateItem", "id": "a0", "fields": {"title": "Title \#($0)"}}"# }
            let text = #"{"operations": ["# + operations.joined(separator: ",") + "]}"
            #expect(text.utf8.count > 64 << 10)
            try await client.execute(uri: "/catalogs/shelf/batches", method: .post, headers: [.contentType: "application/json"], body: Self.body(text)) { response in
                #expect(response.status == .ok)
                let object = try Self.json(response.body) as? [String: Any]
                #expect(object?["revision"] as? Int == 2)
            }
            try await client.execute(uri: "/catalogs/shelf/batches", method: .post, headers: [.contentType: "application/json"], body: Self.body(String(text.dropLast()))) {
                try Self.problem($0, status: 400, kind: "malformed-body")
            }
            try await client.execute(uri: "/catalogs/shelf", method: .get) { response in
                #expect(String(buffer: response.body).contains(#""title":"Title 1499""#))
            }
        }
    }

    @Test(arguments: Backend.available)
    func aRevisionPastTheJournalIsGone(backend: Backend) async throws {
        try await Self.withServer(on: backend) { client, store in
            // Past the retention and the next pruning.
            for n in 0..<(CatalogStore.defaultJournalRevisions + StoreRules.journalPruningInterval + 1) {
                try await store.move(item: "a0", toSection: "a", index: n % 2, in: "shelf")
            }
            try await client.execute(uri: "/catalogs/shelf/changes?since=1", method: .get) { try Self.problem($0, status: 410, kind: "revision-too-old") }
        }
    }

    @Test(arguments: Backend.available)
    func importsByContentType(backend: Backend) async throws {
        try await Self.withServer(on: backend, ServerConfiguration(port: 0, bodyLimit: 4_096)) { client, _ in
            let native = #"{"sections": [{"id": "i", "kind": "icons", "items": [{"name": "Home", "icon": "house"}]}]}"#
            try await client.execute(uri: "/catalogs/fresh", method: .put, headers: [.contentType: "application/json"], body: Self.body(native)) { response in
                #expect(response.status == .created)
                let object = try Self.json(response.body) as? [String: Any]
                #expect(object?["revision"] as? Int == 1)
            }
            let plist = #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><array><dict><key>name</key><string>Mail</string><key>icon</key><string>envelope</string></dict></array></plist>"#
            try await client.execute(uri: "/catalogs/fresh", method: .put, headers: [.contentType: "application/x-plist"], body: Self.body(plist)) { response in
                #expect(response.status == .ok)
                let object = try Self.json(response.body) as? [String: Any]
                #expect(object?["revision"] as? Int == 2)
            }
            try await client.execute(uri: "/catalogs/fresh", method: .get) { response in
                let sections = try #require((try Self.json(response.body) as? [String: Any])?["sections"] as? [[String: Any]])
                #expect(((sections.first?["items"] as? [[String: Any]])?.first?["name"] as? String) == "Mail")
            }
            try await client.execute(uri: "/catalogs/fresh", method: .put, headers: [.contentType: "text/csv"], body: Self.body("a,b")) { try Self.problem($0, status: 415, kind: "unsupported-media-type") }
            try await client.execute(uri: "/catalogs/fresh", method: .put, headers: [.contentType: "application/json"], body: Self.body("{\"sections\": [")) { try Self.problem($0, status: 400, kind: "malformed-body") }
            try await client.execute(uri: "/catalogs/fresh", method: .put, headers: [.contentType: "application/json"],
                                     body: Self.body(#"{"sections": [{"id": "i", "kind": "icons", "items": [{"name": 3, "icon": "x"}]}]}"#)) { response in
                try Self.problem(response, status: 422, kind: "invalid-body")
                let object = try Self.json(response.body) as? [String: Any]
                #expect(object?["path"] as? String == "sections[0].items[0].name")
            }
            try await client.execute(uri: "/catalogs/fresh", method: .put, headers: [.contentType: "application/json"],
                                     body: Self.body(String(repeating: " ", count: 5_000) + native)) { try Self.problem($0, status: 413, kind: "body-too-large") }
        }
    }

    @Test(arguments: Backend.available)
    func layoutsAsJSONAndPictures(backend: Backend) async throws {
        try await Self.withServer(on: backend) { client, _ in
            let config = #"{"style":"shelf","itemSize":[80,120]}"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            try await client.execute(uri: "/catalogs/shelf/layout?config=\(config)&width=390&height=600", method: .get) { response in
                #expect(response.status == .ok)
                let object = try #require(try Self.json(response.body) as? [String: Any])
                #expect((object["elements"] as? [[String: Any]])?.filter { $0["kind"] as? String == "cell" }.count == 3)
            }
            try await client.execute(uri: "/catalogs/shelf/layout?config=\(config)&width=390&height=600", method: .get,
                                     headers: [.accept: "image/svg+xml"]) { response in
                #expect(response.headers[.contentType] == "image/svg+xml")
                #expect(String(buffer: response.body).contains("<svg"))
            }
            let bad = #"{"style":"grid"}"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            try await client.execute(uri: "/catalogs/shelf/layout?config=\(bad)&width=390&height=600", method: .get) { try Self.problem($0, status: 400, kind: "invalid-layout") }
            try await client.execute(uri: "/catalogs/shelf/layout?config=\(config)&width=0&height=600", method: .get) { try Self.problem($0, status: 400, kind: "invalid-parameter") }
        }
    }

    @Test(arguments: Backend.available)
    func tokensProtectWrites(backend: Backend) async throws {
        try await Self.withServer(on: backend, ServerConfiguration(port: 0, token: "s3cret")) { client, _ in
            let move = Self.body(#"{"item": "a0", "toSection": "c", "index": 0}"#)
            try await client.execute(uri: "/catalogs/shelf/moves", method: .post, headers: [.contentType: "application/json"], body: move) { try Self.problem($0, status: 401, kind: "unauthorized") }
            try await client.execute(uri: "/catalogs/shelf/moves", method: .post, headers: [.contentType: "application/json", .authorization: "Bearer wrong"], body: move) {
                try Self.problem($0, status: 401, kind: "unauthorized")
            }
            try await client.execute(uri: "/catalogs/shelf/moves", method: .post, headers: [.contentType: "application/json", .authorization: "Bearer s3cret"], body: move) { #expect($0.status == .ok) }
            try await client.execute(uri: "/catalogs/shelf", method: .get) { #expect($0.status == .ok) }
        }
        try await Self.withServer(on: backend, ServerConfiguration(port: 0, token: "s3cret", protectReads: true)) { client, _ in
            try await client.execute(uri: "/catalogs", method: .get) { try Self.problem($0, status: 401, kind: "unauthorized") }
            try await client.execute(uri: "/catalogs", method: .get, headers: [.authorization: "Bearer s3cret"]) { #expect($0.status == .ok) }
        }
    }
}

/// The OpenAPI document the server serves describes exactly the routes it has.
@Suite struct OpenAPITests {
    @Test func theDocumentListsEveryRouteAndItsStatuses() async throws {
        try await ServerTests.withServer { client, _ in
            try await client.execute(uri: "/openapi.json", method: .get) { response in
                #expect(response.status == .ok)
                let document = try #require(try ServerTests.json(response.body) as? [String: Any])
                #expect(document["openapi"] as? String == "3.1.0")
                let paths = try #require(document["paths"] as? [String: [String: Any]])
                let routes = Set(paths.flatMap { path, operations in
                    operations.keys.filter { $0 != "parameters" }.map { "\($0.uppercased()) \(path)" }
                })
                // The routes as the server's own router has them.
                #expect(CatalogServer.routes.count >= 9 && CatalogServer.routes.contains("POST /catalogs/{name}/moves"), "\(CatalogServer.routes)")
                #expect(routes == Set(CatalogServer.routes))
                let moves = try #require((paths["/catalogs/{name}/moves"]?["post"] as? [String: Any])?["responses"] as? [String: Any])
                #expect(Set(moves.keys).isSuperset(of: ["200", "400", "404", "409", "412", "422"]))
            }
        }
    }
}
