// DOC: Sources/CatalogStore/CatalogStore.docc/FollowingAServer.md
import CatalogClient
import CatalogStore
import Foundation

/// A phone's copy of a server's bookshelf: followed, written at once, sent in turn.
func followAServer(_ server: URL, database: String) async throws -> [[String]] {
    let store = try CatalogStore(path: database)
    let client = try CatalogClient(store: store, server: server)
    let following = Task { try await client.run(following: ["shelf"]) }
    defer { following.cancel() }

    // The server's catalogue arrives as an ordinary update of the local store.
    try await client.waitUntilInStep(with: "shelf")

    // A move on the phone changes the copy at once, and is queued in the same transaction.
    try await store.move(item: "b0", toSection: "c", index: 0, in: "shelf")
    print(try store.outbox().map(\.state))  // [pending]

    // Sent in order, numbered, applied once on the server; then the outbox is empty again.
    try await client.waitUntilInStep(with: "shelf")
    print(try store.outbox().isEmpty)  // true
    return try store.catalog(named: "shelf").sections.map { $0.items.map(\.id) }  // [["a0"], [], ["b0"]]
}
// DOC: end
