import CatalogDiff
import CatalogModel
import CatalogServer
import CatalogStore
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Issue #6's concurrent clients: 8 clients, each on its own connection, post 100 moves and
/// batches to one catalogue at once. Every request gets 2xx or 409; the accepted writes carry
/// consecutive revisions; replaying them in revision order gives the server's snapshot; and a
/// client that follows `changes?since=` from where it started reaches that snapshot.
@Suite struct ConcurrentClientTests {
    /// Six shelves of capacity 6 holding four books each.
    static let shelves = Catalog(name: "shelf", sections: (0..<6).map { s in
        Section(id: "s\(s)", kind: .bookshelf, capacity: 6,
                items: (0..<4).map { Item(id: "b\(s)-\($0)", content: .book(Book(title: "Book \($0)", cover: "\($0)"))) })
    })

    struct Accepted: Sendable {
        var revision: Int
        var batch: Batch
        /// False for a write that changed nothing (answered at the revision it found).
        var changed: Bool
    }

    @Test func eightClientsAtOnce() async throws {
        let store = try CatalogStore.inMemory()
        let initial = try store.catalog(named: store.replace(Self.shelves).catalog)
        // (A long head timeout: on a busy machine a client may sit between two of its requests
        // for longer than the server's 10 s.)
        let app = CatalogServer.application(store: store, configuration: ServerConfiguration(port: 0, headTimeout: 300))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let accepted = try await withThrowingTaskGroup(of: [Accepted].self) { group in
                for c in 0..<8 {
                    group.addTask {
                        let http = TestClient(host: "127.0.0.1", port: port)
                        http.connect()
                        defer { Task { try? await http.shutdown() } }
                        var random = SplitMix64(seed: UInt64(c + 1))
                        var mine: [Accepted] = []
                        for n in 0..<100 {
                            let book = "b\(Int.random(in: 0..<6, using: &random))-\(Int.random(in: 0..<4, using: &random))"
                            let target = "s\(Int.random(in: 0..<6, using: &random))"
                            let policy = [MovePolicy.reject, .displace, .swap][Int.random(in: 0..<3, using: &random)]
                            let batch: Batch
                            let response: TestClient.Response
                            if n % 2 == 0 {
                                batch = Batch(operations: [.moveItem(id: book, toSection: target, index: 0, policy: policy)])
                                response = try await http.post("/catalogs/shelf/moves", headers: [.contentType: "application/json"], body: ByteBuffer(string:
                                    #"{"item": "\#(book)", "toSection": "\#(target)", "index": 0, "policy": "\#(policy.rawValue)"}"#))
                            } else {
                                let title = "c\(c)n\(n)"
                                batch = Batch(operations: [.updateItem(id: book, fields: ItemFields(title: title)),
                                                           .moveItem(id: book, toSection: target, index: 0, policy: policy)])
                                response = try await http.post("/catalogs/shelf/batches", headers: [.contentType: "application/json"], body: ByteBuffer(string: #"""
                                    {"operations": [{"op": "updateItem", "id": "\#(book)", "fields": {"title": "\#(title)"}},
                                                    {"op": "moveItem", "id": "\#(book)", "toSection": "\#(target)", "index": 0, "policy": "\#(policy.rawValue)"}]}
                                    """#))
                            }
                            let status = response.status.code
                            #expect(status == 200 || status == 409, "client \(c) request \(n): \(status)")
                            if status == 200, let body = response.body,
                               let object = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any],
                               let revision = object["revision"] as? Int,
                               let changeset = object["changeset"] as? [String: Any] {
                                let changed = (changeset["fromRevision"] as? Int) != (changeset["toRevision"] as? Int)
                                mine.append(Accepted(revision: revision, batch: batch, changed: changed))
                            }
                        }
                        return mine
                    }
                }
                var all: [Accepted] = []
                for try await part in group { all += part }
                return all
            }
            let final = try store.catalog(named: "shelf")
            // Consecutive revisions, one per accepted write that changed something.
            #expect(accepted.filter(\.changed).map(\.revision).sorted() == Array((initial.revision + 1)...final.revision))
            // Replaying the accepted writes in revision order (a write that changed nothing after
            // the one that made the revision it found) gives the server's snapshot.
            var replay = initial
            for write in accepted.sorted(by: { ($0.revision, $0.changed ? 0 : 1) < ($1.revision, $1.changed ? 0 : 1) }) {
                replay = try replay.applying(write.batch)
            }
            #expect(replay == final)
            // A client that started at the initial snapshot catches up through the change feed.
            try await client.execute(uri: "/catalogs/shelf/changes?since=\(initial.revision)", method: .get) { response in
                #expect(response.status == .ok)
                let changeset = try JSONDecoder().decode(Changeset.self, from: Data(response.body.readableBytesView))
                #expect(changeset.violations(from: initial, to: final) == [])
            }
            print("concurrent clients: \(accepted.count) of 800 writes accepted, the rest refused with 409")
        }
    }
}
