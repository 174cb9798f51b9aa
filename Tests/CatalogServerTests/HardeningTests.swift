import CatalogImport
import CatalogModel
@testable import CatalogServer
import CatalogStore
import CatalogTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Requests that used to crash the server, break the change feed or be read differently from
/// what the client sent: each is refused (or served) with the server answering afterwards and
/// the database as it was — on either backend where a store is involved.
@Suite struct HardeningTests {
    typealias Server = ServerTests

    /// Percent-encodes a query value (JSON in a query string).
    static func query(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    }

    static func stillServes(_ client: any TestClientProtocol, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await client.execute(uri: "/catalogs/shelf", method: .get) { #expect($0.status == .ok, sourceLocation: sourceLocation) }
    }

    @Test(arguments: Backend.available)
    func hugeLayoutSizesAreRefusedNotFatal(backend: Backend) async throws {
        try await Server.withServer(on: backend) { client, store in
            let svg: HTTPFields = [.accept: "image/svg+xml"]
            for config in [#"{"style":"flow","itemSize":[1e300,50]}"#, #"{"style":"shelf","lineSpacing":1e12}"#,
                           #"{"style":"waterfall","sectionInset":[0,0,0,2e6]}"#, #"{"style":"flow","headerHeight":1e300}"#] {
                try await client.execute(uri: "/catalogs/shelf/layout?config=\(Self.query(config))&width=390&height=844",
                                         method: .get, headers: svg) { try Server.problem($0, status: 400, kind: "invalid-layout") }
            }
            try await client.execute(uri: "/catalogs/shelf/layout?config=\(Self.query(#"{"style":"flow"}"#))&width=1e300&height=844",
                                     method: .get, headers: svg) { try Server.problem($0, status: 400, kind: "invalid-layout") }
            // The persistent variant: a stored size that no picture could draw is refused at the door.
            let batch = #"{"operations": [{"op": "insertItem", "section": "c", "index": 0, "#
                + #""item": {"id": "huge", "kind": "book", "title": "Huge", "cover": "h", "size": [1e300, 120]}}]}"#
            try await client.execute(uri: "/catalogs/shelf/batches", method: .post, headers: [.contentType: "application/json"], body: Server.body(batch)) {
                try Server.problem($0, status: 422, kind: "invalid-body")
            }
            #expect(try await store.revision(of: "shelf") == 1)
            let bound = Int(Size.maximumLength)
            try await client.execute(uri: "/catalogs/shelf/layout?config=\(Self.query(#"{"style":"flow","itemSize":[\#(bound),\#(bound)]}"#))&width=\(bound)&height=844",
                                     method: .get, headers: svg) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("<svg"))
            }
            try await Self.stillServes(client)
        }
    }

    @Test(arguments: Backend.available)
    func canonicallyEquivalentIDsAreOneID(backend: Backend) async throws {
        try await Server.withServer(on: backend) { client, store in
            let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
            func insert(_ id: String) -> ByteBuffer {
                Server.body(#"{"operations": [{"op": "insertItem", "section": "c", "index": 0, "item": {"id": "\#(id)", "kind": "book", "title": "t", "cover": "c"}}]}"#)
            }
            try await client.execute(uri: "/catalogs/shelf/batches", method: .post, headers: [.contentType: "application/json"], body: insert(decomposed)) { #expect($0.status == .ok) }
            try await client.execute(uri: "/catalogs/shelf/batches", method: .post, headers: [.contentType: "application/json"], body: insert(composed)) {
                try Server.problem($0, status: 422, kind: "rejected-operation")
            }
            // Stored in one form; found whichever form a client sends.
            let stored = try await store.catalog(named: "shelf").sections[2].items.map(\.id)
            #expect(stored.count == 1 && Array(stored[0].utf8) == Array(composed.utf8))
            try await client.execute(uri: "/catalogs/shelf/changes?since=1", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/catalogs/shelf/moves", method: .post,
                                     headers: [.contentType: "application/json"], body: Server.body(#"{"item": "\#(decomposed)", "toSection": "b", "index": 0}"#)) { #expect($0.status == .ok) }
            try await client.execute(uri: "/catalogs/shelf/changes?since=1", method: .get) { #expect($0.status == .ok) }
            try await store.checkIntegrity()
            // A whole catalogue with both forms is refused as repeating an id.
            let file = #"{"sections": [{"id": "s", "kind": "bookshelf", "items": [{"id": "\#(composed)", "title": "a", "cover": "a"}, {"id": "\#(decomposed)", "title": "b", "cover": "b"}]}]}"#
            try await client.execute(uri: "/catalogs/twins", method: .put, headers: [.contentType: "application/json"], body: Server.body(file)) {
                #expect($0.status.code == 422)
            }
            await #expect(throws: StoreError.unknownCatalog("twins")) { try await store.revision(of: "twins") }
        }
    }

    @Test(arguments: Backend.available)
    func aSectionDeletedAndInsertedAgainInOneBatchCommits(backend: Backend) async throws {
        try await Server.withServer(on: backend) { client, store in
            // Section a (a0, a1) replaced by an empty a at the end, a1 moving into the new a first.
            let batch = #"{"operations": [{"op": "moveItem", "id": "a1", "toSection": "b", "index": 0}, {"op": "deleteSection", "id": "a"}, "#
                + #"{"op": "insertSection", "index": 2, "section": {"id": "a", "kind": "bookshelf", "capacity": 3}}, "#
                + #"{"op": "moveItem", "id": "a1", "toSection": "a", "index": 0}]}"#
            try await client.execute(uri: "/catalogs/shelf/batches", method: .post, headers: [.contentType: "application/json"], body: Server.body(batch)) { #expect($0.status == .ok) }
            let catalog = try await store.catalog(named: "shelf")
            #expect(catalog.sections.map(\.id) == ["b", "c", "a"])
            #expect(catalog.sections[2].items.map(\.id) == ["a1"] && catalog.sections[2].capacity == 3)
            #expect(catalog.sections[0].items.map(\.id) == ["b0"])
            try await store.checkIntegrity()
            let changes = try await store.changes(in: "shelf", since: 1)
            #expect(changes.violations(from: Server.shelves, to: catalog) == [])
        }
    }

    @Test(arguments: Backend.available)
    func catalogueNamesInPathsArePercentDecoded(backend: Backend) async throws {
        try await Server.withServer(on: backend) { client, store in
            let file = Server.body(#"{"sections": [{"id": "s", "kind": "icons", "items": [{"id": "i", "name": "n", "icon": "i"}]}]}"#)
            let json: HTTPFields = [.contentType: "application/json"]
            try await client.execute(uri: "/catalogs/caf%C3%A9", method: .put, headers: json, body: file) { #expect($0.status == .created) }
            try await client.execute(uri: "/catalogs/my%20shelf", method: .put, headers: json, body: file) { #expect($0.status == .created) }
            #expect(try await store.summaries().map(\.name) == ["café", "my shelf", "shelf"])
            try await client.execute(uri: "/catalogs/my%20shelf", method: .get) { #expect($0.status == .ok) }
            // The decomposed spelling of the same name finds the same catalogue.
            try await client.execute(uri: "/catalogs/cafe%CC%81", method: .get) { #expect($0.status == .ok) }
            for bad in ["bad%01name", "a%2Fb", String(repeating: "x", count: Catalog.maximumNameLength + 1)] {
                try await client.execute(uri: "/catalogs/\(bad)", method: .put, headers: json, body: file) {
                    #expect($0.status.code == 422)
                }
            }
            try await client.execute(uri: "/catalogs/bad%ZZ", method: .get) { try Server.problem($0, status: 400, kind: "invalid-parameter") }
            #expect(try await store.summaries().count == 3)
        }
    }

    @Test(arguments: Backend.available)
    func repeatedKeysAreRefusedByName(backend: Backend) async throws {
        try await Server.withServer(on: backend) { client, store in
            try await client.execute(uri: "/catalogs/shelf/moves", method: .post,
                                     headers: [.contentType: "application/json"], body: Server.body(#"{"item": "a0", "item": "b0", "toSection": "c"}"#)) { response in
                try Server.problem(response, status: 400, kind: "malformed-body")
                #expect(String(buffer: response.body).contains(#"\"item\" appears twice"#))
            }
            let batch = #"{"operations": [{"op": "deleteItem", "id": "a0", "id": "b0"}]}"#
            try await client.execute(uri: "/catalogs/shelf/batches", method: .post, headers: [.contentType: "application/json"], body: Server.body(batch)) {
                try Server.problem($0, status: 400, kind: "malformed-body")
            }
            let config = Self.query(#"{"style":"flow","style":"circular"}"#)
            try await client.execute(uri: "/catalogs/shelf/layout?config=\(config)&width=390&height=844", method: .get) { response in
                try Server.problem(response, status: 400, kind: "invalid-layout")
                #expect(String(buffer: response.body).contains(#"\"style\" appears twice"#))
            }
            #expect(try await store.revision(of: "shelf") == 1)
        }
    }

    @Test(arguments: Backend.available)
    func aWriteThatChangesNothingKeepsTheRevision(backend: Backend) async throws {
        try await Server.withServer(on: backend) { client, store in
            for body in [#"{"item": "a0", "toSection": "a", "index": 0}"#, #"{"item": "b0", "toSection": "b"}"#] {
                try await client.execute(uri: "/catalogs/shelf/moves", method: .post, headers: [.contentType: "application/json"], body: Server.body(body)) { response in
                    #expect(response.status == .ok)
                    let object = try #require(try Server.json(response.body) as? [String: Any])
                    #expect(object["revision"] as? Int == 1)
                    let changeset = try #require(object["changeset"] as? [String: Any])
                    #expect((changeset["stages"] as? [Any])?.isEmpty == true)
                    #expect(changeset["fromRevision"] as? Int == 1 && changeset["toRevision"] as? Int == 1)
                }
            }
            let batch = #"{"operations": [{"op": "updateItem", "id": "a0", "fields": {"title": "a 0"}}, {"op": "moveSection", "id": "c", "index": 2}]}"#
            try await client.execute(uri: "/catalogs/shelf/batches", method: .post, headers: [.contentType: "application/json"], body: Server.body(batch)) { response in
                #expect(response.status == .ok)
                let object = try #require(try Server.json(response.body) as? [String: Any])
                #expect(object["revision"] as? Int == 1)
            }
            #expect(try await store.revision(of: "shelf") == 1)
        }
    }

    @Test func headAnswersLikeGetWithoutABody() async throws {
        try await Server.withServer { client, _ in
            var length: String?
            try await client.execute(uri: "/catalogs/shelf", method: .get) { length = $0.headers[.contentLength] }
            try await client.execute(uri: "/catalogs/shelf", method: .head) { response in
                #expect(response.status == .ok)
                #expect(response.body.readableBytes == 0)
                #expect(response.headers[.eTag] == "\"1\"")
                #expect(response.headers[.contentLength] == length)
            }
            try await client.execute(uri: "/catalogs/nope", method: .head) { #expect($0.status == .notFound) }
        }
    }

    @Test func internalErrorsDoNotShowTheDatabaseToClients() {
        let problem = Problem(StoreError.database("UNIQUE constraint failed: section.catalog_pk, section.id"))
        #expect(problem.status == .internalServerError)
        #expect(!problem.detail.contains("UNIQUE") && !problem.detail.contains("section.id"))
        #expect(!Problem(CocoaError(.fileReadCorruptFile)).detail.contains("Cocoa"))
    }

    /// A capacity either backend could not store is refused alike by both (422), before any
    /// write; the largest both store is taken by both.
    @Test(arguments: Backend.available)
    func capacitiesAreBoundedAlikeOnBothBackends(backend: Backend) async throws {
        try await Server.withServer(on: backend) { client, store in
            func shelf(_ capacity: Int) -> ByteBuffer {
                Server.body(#"{"sections": [{"id": "s", "kind": "bookshelf", "capacity": \#(capacity), "items": []}]}"#)
            }
            for capacity in [Int(Int32.max) + 1, Int(Int64.max), 0] {
                try await client.execute(uri: "/catalogs/big", method: .put, headers: [.contentType: "application/json"], body: shelf(capacity)) {
                    try Server.problem($0, status: 422, kind: "invalid-body")
                }
                let batch = #"{"operations": [{"op": "insertSection", "index": 0, "section": {"id": "n", "kind": "bookshelf", "capacity": \#(capacity)}}]}"#
                try await client.execute(uri: "/catalogs/shelf/batches", method: .post, headers: [.contentType: "application/json"], body: Server.body(batch)) {
                    #expect($0.status.code == 422, "\(capacity)")
                }
            }
            #expect(try await store.summaries().map(\.name) == ["shelf"])
            try await client.execute(uri: "/catalogs/big", method: .put, headers: [.contentType: "application/json"], body: shelf(Int(Int32.max))) {
                #expect($0.status == .created)
            }
            #expect(try await store.catalog(named: "big").sections[0].capacity == Int(Int32.max))
        }
    }

    @Test func tokensAreComparedWholly() async throws {
        try await Server.withServer(ServerConfiguration(port: 0, token: "abc")) { client, _ in
            let move = Server.body(#"{"item": "a0", "toSection": "c"}"#)
            for header in ["Bearer abd", "Bearer ab", "Bearer abcd", "Bearer abc ", "Basic abc", "abc", "Bearer"] {
                try await client.execute(uri: "/catalogs/shelf/moves", method: .post, headers: [.contentType: "application/json", .authorization: header], body: move) {
                    #expect($0.status == (header == "Bearer abc " ? .ok : .unauthorized), "\(header)")
                }
            }
        }
    }

    @Test(arguments: Backend.available)
    func bodiesOverTheLimitsAreRefusedWhileParsed(backend: Backend) async throws {
        let configuration = ServerConfiguration(port: 0, limits: DocumentLimits(maxItems: 50, maxSections: 5))
        try await Server.withServer(on: backend, configuration) { client, store in
            let json: HTTPFields = [.contentType: "application/json"]
            func icons(_ count: Int) -> ByteBuffer {
                Server.body("[" + (0..<count).map { #"{"name": "n\#($0)", "icon": "i\#($0)"}"# }.joined(separator: ",") + "]")
            }
            try await client.execute(uri: "/catalogs/icons", method: .put, headers: json, body: icons(50)) { #expect($0.status == .created) }
            try await client.execute(uri: "/catalogs/icons", method: .put, headers: json, body: icons(51)) { try Server.problem($0, status: 413, kind: "too-large") }
            let brackets = Server.body("[" + Array(repeating: "[0]", count: 200_000).joined(separator: ",") + "]")
            try await client.execute(uri: "/catalogs/brackets", method: .put, headers: json, body: brackets) { try Server.problem($0, status: 413, kind: "too-large") }
            let batch = Server.body(#"{"operations": ["# + Array(repeating: #"{"op": "deleteItem", "id": "a0"}"#, count: 51).joined(separator: ",") + "]}")
            try await client.execute(uri: "/catalogs/shelf/batches", method: .post, headers: [.contentType: "application/json"], body: batch) { try Server.problem($0, status: 413, kind: "too-large") }
            // A move is a handful of keys: a large body is refused before it is read.
            let move = Server.body(#"{"item": "\#(String(repeating: "a", count: 70_000))", "toSection": "c"}"#)
            try await client.execute(uri: "/catalogs/shelf/moves", method: .post, headers: [.contentType: "application/json"], body: move) { try Server.problem($0, status: 413, kind: "body-too-large") }
            #expect(try await store.summaries().map(\.name) == ["icons", "shelf"])
            #expect(try await store.revision(of: "shelf") == 1)
            try await Self.stillServes(client)
        }
    }

    @Test func largeLayoutsAreAnsweredForTheViewportOnly() async throws {
        let configuration = ServerConfiguration(port: 0, maxLayoutElements: 2)
        try await Server.withServer(configuration) { client, _ in
            let config = Self.query(#"{"style":"flow","itemSize":[100,400]}"#)
            for accept in ["application/json", "image/svg+xml"] {
                try await client.execute(uri: "/catalogs/shelf/layout?config=\(config)&width=100&height=400", method: .get, headers: [.accept: accept]) {
                    try Server.problem($0, status: 422, kind: "layout-too-large")
                }
                // The viewport shows one item at a time.
                for offset in [0, 410, 820] {
                    try await client.execute(uri: "/catalogs/shelf/layout?config=\(config)&width=100&height=400&visible=true&offset=0,\(offset)",
                                             method: .get, headers: [.accept: accept]) { response in
                        #expect(response.status == .ok)
                        let text = String(buffer: response.body)
                        if accept == "image/svg+xml" {
                            #expect(text.components(separatedBy: #"data-kind="cell""#).count == 2, "\(text)")
                        } else {
                            let elements = try #require((try Server.json(response.body) as? [String: Any])?["elements"] as? [[String: Any]])
                            #expect(elements.count == 1)
                        }
                    }
                }
            }
        }
    }
}
