import CatalogDiff
import CatalogImport
import CatalogModel
import CatalogServer
import CatalogStore
import CatalogTestSupport
import CatalogViews
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Views over HTTP (docs/Views.md) on both backends: `where`, `sort`, `group`, `limit` and
/// `offset` on the snapshot, the event stream, the layout and the changes, and every bad
/// parameter a 400 problem that names it and its position.
@Suite struct ViewHTTPTests {
    static let feed = Catalog(name: "feed", sections: (0..<3).map { s in
        Section(id: "s\(s)", kind: .videos, items: (0..<6).map { i in
            Item(id: "v\(s)\(i)", content: .video(Video(title: "Video \(s)\(i)", cover: "c", playCount: (s * 6 + i) * 10,
                                                     status: [.published, .recommended, .draft][(s + i) % 3])))
        })
    })

    static let parameters = [("where", #"status in ["published", "recommended"]"#), ("sort", "-playCount,title"), ("group", "status"), ("limit", "5")]
    static let definition = try! ViewDefinition(where: parameters[0].1, sort: parameters[1].1, group: parameters[2].1, limit: 5)

    static func query(_ parameters: [(String, String)]) -> String {
        parameters.map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)" }.joined(separator: "&")
    }

    /// A view document's sections and items by id, and its total.
    static func shape(_ data: Data) throws -> (sections: [String], items: [[String]], total: Int?, revision: Int?) {
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let sections = try #require(object["sections"] as? [[String: Any]])
        return (sections.map { $0["id"] as? String ?? "" }, sections.map { ($0["items"] as? [[String: Any]] ?? []).map { $0["id"] as? String ?? "" } },
                object["total"] as? Int, object["revision"] as? Int)
    }

    static func shape(_ catalog: Catalog) -> (sections: [String], items: [[String]]) {
        (catalog.sections.map(\.id), catalog.sections.map { $0.items.map(\.id) })
    }

    @Test(arguments: Backend.available)
    func theSnapshotTheLayoutAndTheChangesOfAView(backend: Backend) async throws {
        try await ServerTests.withServer(on: backend) { client, store in
            try await store.replace([(Self.feed, nil)], progress: nil)
            let expected = try Self.definition.evaluate(on: try await store.catalog(named: "feed"))
            try await client.execute(uri: "/catalogs/feed?" + Self.query(Self.parameters), method: .get) { response in
                #expect(response.status == .ok)
                let got = try Self.shape(Data(response.body.readableBytesView))
                #expect(got.sections == Self.shape(expected.catalog).sections && got.items == Self.shape(expected.catalog).items)
                #expect(got.total == 12 && got.total == expected.total)
                #expect(got.revision == expected.catalog.revision)
            }
            let config = #"{"style":"flow","itemSize":[80,120]}"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            try await client.execute(uri: "/catalogs/feed/layout?config=\(config)&width=390&height=600&" + Self.query(Self.parameters + [("offset", "2")]),
                                     method: .get) { response in
                #expect(response.status == .ok)
                let object = try #require(try ServerTests.json(response.body) as? [String: Any])
                #expect((object["elements"] as? [[String: Any]])?.filter { $0["kind"] as? String == "cell" }.count == 5)
            }
            // The view's changeset from revision 1, after a write that moves an item to the top.
            let before = expected.catalog
            _ = try await store.apply(Batch(operations: [.updateItem(id: "v00", fields: ItemFields(playCount: 1_000))]), to: "feed")
            let after = try Self.definition.evaluate(on: try await store.catalog(named: "feed")).catalog
            try await client.execute(uri: "/catalogs/feed/changes?since=\(before.revision)&" + Self.query(Self.parameters), method: .get) { response in
                #expect(response.status == .ok)
                let changeset = try JSONDecoder().decode(Changeset.self, from: Data(response.body.readableBytesView))
                #expect(changeset.fromRevision == before.revision && changeset.toRevision == after.revision)
                #expect(changeset.violations(from: before, to: after) == [])
                #expect(!changeset.isEmpty)
            }
        }
    }

    @Test(arguments: Backend.available)
    func theEventStreamOfAViewSendsItsChanges(backend: Backend) async throws {
        try await ServerTests.withServer(on: backend) { client, store in
            try await store.replace([(Self.feed, nil)], progress: nil)
            let port = try #require(client.port)
            let stream = try RawConnection(port: port)
            stream.openEventStream("/catalogs/feed/events?" + Self.query(Self.parameters))
            let first = try #require(await stream.awaitEvents(1).first, "\(stream.text.prefix(300))")
            #expect(first.event == "snapshot")
            var view = try Self.definition.evaluate(on: try await store.catalog(named: "feed")).catalog
            let got = try Self.shape(Data(first.data.utf8))
            #expect(got.items == Self.shape(view).items && got.total == 12)
            // A draft's play count changes nothing the view shows; the next write does.
            _ = try await store.apply(Batch(operations: [.updateItem(id: "v02", fields: ItemFields(playCount: 7))]), to: "feed")
            let shown = try await store.apply(Batch(operations: [.updateItem(id: "v00", fields: ItemFields(playCount: 1_000))]), to: "feed")
            let events = await stream.awaitEvents { $0.last?.id == String(shown.revision) }
            #expect(events.count == 2, "\(stream.text)")
            let change = try #require(events.last)
            #expect(change.event == "changes")
            let changeset = try JSONDecoder().decode(Changeset.self, from: Data(change.data.utf8))
            let total = try #require(try JSONSerialization.jsonObject(with: Data(change.data.utf8)) as? [String: Any])["total"] as? Int
            #expect(total == 12)
            let next = try Self.definition.evaluate(on: try await store.catalog(named: "feed")).catalog
            #expect(changeset.fromRevision == view.revision)
            #expect(changeset.violations(from: view, to: next) == [])
            view = next
            #expect(view.sections.first?.items.first?.id == "v00")
            stream.close()
            // A view's stream carries no sections for followers.
            try await client.execute(uri: "/catalogs/feed/events?include=sections&sort=title", method: .get) { response in
                try ServerTests.problem(response, status: 400, kind: "invalid-parameter")
            }
        }
    }

    @Test(arguments: [
        ("where", "(title = \"a\"", 13),
        ("where", "playCount contains \"x\"", 11),
        ("where", String(repeating: "(", count: 40) + "title = \"a\"" + String(repeating: ")", count: 40), 33),
        ("where", String(repeating: "title = \"a\" or ", count: 400) + "title = \"b\"", 4097),
        ("limit", "-1", 1),
        ("offset", "1e30", 1),
        ("sort", "title,-title", 7),
        ("group", "-section", 1),
    ] as [(String, String, Int)])
    func aBadParameterIsA400ThatSaysWhereAndWhat(_ parameter: String, _ value: String, _ position: Int) async throws {
        try await ServerTests.withServer { client, store in
            try store.replace(Self.feed)
            for path in ["/catalogs/feed", "/catalogs/feed/events", "/catalogs/feed/changes?since=1"] {
                let uri = path + (path.contains("?") ? "&" : "?") + Self.query([(parameter, value)])
                try await client.execute(uri: uri, method: .get) { response in
                    try ServerTests.problem(response, status: 400, kind: "invalid-view")
                    let object = try #require(try ServerTests.json(response.body) as? [String: Any])
                    #expect(object["path"] as? String == parameter)
                    #expect(object["position"] as? Int == position, "\(path): \(object)")
                }
            }
        }
    }

    @Test func anUnknownFieldIsNamedWithTheCataloguesFields() async throws {
        try await ServerTests.withServer { client, store in
            try store.replace(Self.feed)
            for path in ["/catalogs/feed?where=plays%20%3E%203", "/catalogs/feed?sort=author", "/catalogs/feed/events?sort=author"] {
                try await client.execute(uri: path, method: .get) { response in
                    try ServerTests.problem(response, status: 400, kind: "invalid-view")
                    let object = try #require(try ServerTests.json(response.body) as? [String: Any])
                    let fields = try #require(object["fields"] as? [String])
                    #expect(fields.contains("playCount") && !fields.contains("plays"))
                    #expect((object["detail"] as? String)?.contains("unknown field") == true)
                }
            }
        }
    }
}
