import CatalogClient
import CatalogDiff
import CatalogModel
import CatalogServer
import CatalogStore
import CatalogTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// A device's copy of a server's catalogue (docs/Following-a-server.md), against a live server
/// on loopback: server writes reach the copy as updates the simulator accepts, the device's
/// writes go through its outbox exactly once, a refused one is reported and undone, and a
/// follower that was away catches up.
@Suite struct FollowingTests {
    /// Shelves of capacity 3: a holds a0–a2 (full), b holds b0, c is empty.
    static let shelves = Catalog(name: "shelf", sections: [
        Section(id: "a", kind: .bookshelf, capacity: 3, items: books("a", 3)),
        Section(id: "b", kind: .bookshelf, capacity: 3, items: books("b", 1)),
        Section(id: "c", kind: .bookshelf, capacity: 3),
    ])

    static func books(_ prefix: String, _ count: Int) -> [Item] {
        (0..<count).map { Item(id: "\(prefix)\($0)", content: .book(Book(title: "\(prefix) \($0)", cover: "\(prefix)\($0)"))) }
    }

    /// A live server on `server` (its port given to `test`).
    static func serving(_ server: CatalogStore, _ test: @escaping @Sendable (URL) async throws -> Void) async throws {
        let app = CatalogServer.application(store: server, configuration: ServerConfiguration(port: 0, headTimeout: 300))
        try await app.test(.live) { client in
            try await test(URL(string: "http://127.0.0.1:\(try #require(client.port))")!)
        }
    }

    /// A local database file for a device.
    static func deviceStore() throws -> (CatalogStore, String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-device-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("device.sqlite").path
        return (try CatalogStore(path: path), path)
    }

    /// A device database copied whole to a second device (or restored from a backup there):
    /// `device` is closed, its files copied to `copyPath`; the device's store and the copy's,
    /// open again.
    static func copyDevice(_ device: CatalogStore, at path: String, to copyPath: String) throws -> (CatalogStore, CatalogStore) {
        device.close()
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.copyItem(atPath: path + suffix, toPath: copyPath + suffix)
        }
        return (try CatalogStore(path: path), try CatalogStore(path: copyPath))
    }

    /// Runs a client following "shelf" while `body` runs.
    static func following(_ device: CatalogStore, _ url: URL, _ body: (CatalogClient) async throws -> Void) async throws {
        let client = try CatalogClient(store: device, server: url, retryingAfter: .milliseconds(50), atMost: .seconds(1))
        let task = Task { try await client.run(following: ["shelf"]) }
        defer { task.cancel() }
        try await body(client)
        task.cancel()
        _ = await task.result
    }

    static func same(_ device: CatalogStore, _ server: CatalogStore) throws -> Bool {
        guard let copy = try? device.catalog(named: "shelf") else { return false }
        return copy.sections == (try server.catalog(named: "shelf")).sections
    }

    /// A live server holding ``shelves``, and a new device's store.
    static func servedShelves(_ test: @escaping @Sendable (_ server: CatalogStore, _ device: CatalogStore, URL) async throws -> Void) async throws {
        let server = try CatalogStore.inMemory()
        try server.replace(Self.shelves)
        let (device, _) = try Self.deviceStore()
        try await Self.serving(server) { url in try await test(server, device, url) }
    }

    @Test func serverWritesReachTheCopyAsUpdatesTheSimulatorAccepts() async throws {
        try await Self.servedShelves { server, device, url in try await Self.following(device, url) { client in
            try await waitUntil("the first snapshot") { try Self.same(device, server) }
            let observer = device.observer(of: "shelf")
            var seen = try #require(try await observer.next()).catalog
            let moves: [(String, String)] = [("a0", "c"), ("b0", "a"), ("a1", "c"), ("a0", "b"), ("c0", "b")]
            for (item, section) in moves {
                _ = try? await server.move(item: item, toSection: section, index: 0, in: "shelf")
            }
            try await waitUntil("the server's writes") { try Self.same(device, server) }
            let target = try device.catalog(named: "shelf")
            while seen.revision < target.revision {
                let update = try #require(try await observer.next())
                if let changeset = update.changeset {
                    #expect(changeset.violations(from: seen, to: update.catalog) == [])
                }
                seen = update.catalog
            }
            observer.cancel()
            #expect(try device.followedCatalogs() == [FollowedCatalog(name: "shelf", server: url.absoluteString, serverRevision: try server.revision(of: "shelf"))])
            #expect(try client.outbox().isEmpty)
        } }
    }

    @Test func theDevicesWritesAreSentOnceAndARefusedOneIsReportedAndUndone() async throws {
        try await Self.servedShelves { server, device, url in
            try await Self.following(device, url) { client in
                try await waitUntil("the first snapshot") { try Self.same(device, server) }
                // A write of the device: the copy changes at once, the server once it is sent.
                try await device.move(item: "b0", toSection: "c", index: 0, in: "shelf")
                #expect(try device.catalog(named: "shelf").sections[2].items.map(\.id) == ["b0"])
                try await waitUntil("the write on the server") { try server.catalog(named: "shelf").sections[2].items.map(\.id) == ["b0"] }
                try await waitUntil("the outbox drained") { try client.outbox().isEmpty }
                #expect(try server.revision(of: "shelf") == 2)
            }
            // Offline, the device moves a book onto shelf c, which the server fills meanwhile.
            try await server.move(item: "a0", toSection: "c", in: "shelf")
            try await server.move(item: "a1", toSection: "c", in: "shelf")
            try await device.move(item: "a2", toSection: "c", index: 0, in: "shelf")
            try await device.move(item: "a1", toSection: "b", index: 0, in: "shelf")
            #expect(try device.outbox().map(\.state) == [.pending, .pending])
            try await Self.following(device, url) { client in
                let told = Task { () -> [OutboxEntry] in
                    for await outbox in client.outboxUpdates() where outbox.contains(where: { $0.state == .rejected }) { return outbox }
                    return []
                }
                try await waitUntil("the refusal and the copy at the server's with the other write \((try? client.outbox()) ?? [])") {
                    try client.outbox().map(\.state) == [.rejected] && Self.same(device, server)
                }
                let entry = try #require(try client.outbox().first)
                #expect(entry.status == 409 && entry.answer?.contains("shelf-full") == true, "\(entry)")
                #expect(await told.value.contains(entry))
                // The second write was applied after the refused one: a1 on shelf b.
                #expect(try server.catalog(named: "shelf").sections.map { $0.items.map(\.id) } == [["a2"], ["a1"], ["b0", "a0"]])
                try device.removeRejected(upTo: entry.sequence)
                #expect(try client.outbox().isEmpty)
            }
        }
    }

    /// The server's database copied whole to another server (`catalog copy`): told so, the
    /// device follows the new address, takes its snapshot, and the write it queued meanwhile is
    /// applied there once, with its number — also when the copy lacks the devices' records (a
    /// copy of chosen catalogues, a restored backup): the waiting write is then numbered afresh
    /// under a new client id.
    @Test(arguments: [true, false])
    func aFollowerMovesWithItsServersDatabase(withNumbers: Bool) async throws {
        let old = try CatalogStore.inMemory()
        try old.replace(Self.shelves)
        let (device, _) = try Self.deviceStore()
        try await Self.serving(old) { oldURL in
            try await Self.following(device, oldURL) { client in
                try await waitUntil("the first snapshot") { try Self.same(device, old) }
                try await device.move(item: "b0", toSection: "c", index: 0, in: "shelf")
                try await waitUntil("the outbox drained") { try client.outbox().isEmpty }
            }
            // Offline, the device queues a move; the server's database is copied whole to another.
            try await device.move(item: "a0", toSection: "b", index: 0, in: "shelf")
            let new = try CatalogStore.inMemory()
            try new.restore([try old.archive(of: "shelf")], retired: [:], clients: withNumbers ? try old.clientRecords() : [], replacing: false)
            try await Self.serving(new) { newURL in
                let client = try CatalogClient(store: device, server: newURL, retryingAfter: .milliseconds(50), atMost: .seconds(1))
                await #expect(throws: CatalogClientError.followsAnotherServer(catalog: "shelf", server: oldURL.absoluteString)) {
                    try await client.run(following: ["shelf"])
                }
                #expect(try client.serverMoved(from: oldURL) == ["shelf"])
                #expect(try client.serverMoved(from: oldURL) == [])
                let task = Task { try await client.run(following: ["shelf"]) }
                defer { task.cancel() }
                try await waitUntil("the queued write on the new server") { try client.outbox().isEmpty && Self.same(device, new) }
                #expect(try new.catalog(named: "shelf").sections[1].items.map(\.id) == ["a0"])
                #expect(try old.revision(of: "shelf") == 2)
                #expect(try device.followedCatalogs().map(\.server) == [newURL.absoluteString])
                // The new server records the device's numbers up to the queued write's; without
                // the old records, the write went under a new id as its first.
                #expect(try new.clientRecords().map(\.lastSequence) == [withNumbers ? 2 : 1])
                #expect(try new.revision(of: "shelf") == 3)
                task.cancel()
                _ = await task.result
            }
        }
    }

    @Test func aCatalogueDeletedOnTheServerIsDeletedHereAndItsWaitingWritesRejected() async throws {
        try await Self.servedShelves { server, device, url in
            try await Self.following(device, url) { _ in
                try await waitUntil("the first snapshot") { try Self.same(device, server) }
            }
            // Deleted while the device is away, with a write of the device waiting.
            try await device.move(item: "b0", toSection: "c", in: "shelf")
            try await server.delete([("shelf", nil)])
            let client = try CatalogClient(store: device, server: url, retryingAfter: .milliseconds(50), atMost: .seconds(1))
            try await client.run(following: ["shelf"])   // returns: its only catalogue is gone
            #expect(throws: StoreError.unknownCatalog("shelf")) { try device.catalog(named: "shelf") }
            #expect(try device.followedCatalogs().isEmpty)
            let rejected = try #require(try device.outbox().first)
            // Refused by the server (when sent before the client saw the deletion) or by the
            // client itself: either way a 404 unknown-catalog.
            #expect(rejected.state == .rejected && rejected.status == 404 && rejected.answer?.contains("problems/unknown-catalog") == true,
                    "\(rejected)")
            // Made again on the server, followed again, then deleted while followed.
            try await server.replace([(Self.shelves, nil)], progress: nil)
            let again = Task { try await client.run(following: ["shelf"]) }
            try await waitUntil("the new copy") { try Self.same(device, server) }
            try await server.delete([("shelf", nil)])
            try await again.value
            #expect(throws: StoreError.unknownCatalog("shelf")) { try device.catalog(named: "shelf") }
            // A name the server never had is still an error; one it deleted is "deleted" (at its
            // last revision, which the server keeps), even to a device that never had a copy.
            await #expect(throws: CatalogClientError.unknownCatalog("nothing")) { try await client.run(following: ["nothing"]) }
            let (fresh, _) = try Self.deviceStore()
            try await CatalogClient(store: fresh, server: url).run(following: ["shelf"])
            #expect(try fresh.followedCatalogs().isEmpty)
        }
    }

    @Test func aFollowerAwayCatchesUpWithOneUpdateOrAResetPastTheJournal() async throws {
        let server = try CatalogStore.inMemory()
        var shelves = Self.shelves
        shelves.sections[2].capacity = 10
        try server.replace(shelves)
        let (device, _) = try Self.deviceStore()
        try await Self.serving(server) { url in
            try await Self.following(device, url) { _ in
                try await waitUntil("the first snapshot") { try Self.same(device, server) }
            }
            // Away while the server takes 100 writes.
            for n in 0..<100 { try await server.move(item: "b0", toSection: n % 2 == 0 ? "c" : "b", index: 0, in: "shelf") }
            try await server.move(item: "a0", toSection: "c", index: 0, in: "shelf")
            let before = try device.catalog(named: "shelf")
            let observer = device.observer(of: "shelf", from: before.revision)
            try await Self.following(device, url) { _ in
                try await waitUntil("caught up") { try Self.same(device, server) }
            }
            let update = try #require(try await observer.next())
            #expect(update.revision == before.revision + 1, "one update")
            #expect(try #require(update.changeset).violations(from: before, to: update.catalog) == [])
            observer.cancel()
            // Away for longer than the journal reaches: a reset, taken in as one update too.
            try server.setJournalRevisions(5)
            for n in 0..<20 { try await server.move(item: "a1", toSection: n % 2 == 0 ? "c" : "a", index: 0, in: "shelf") }
            try await server.move(item: "a2", toSection: "c", index: 0, in: "shelf")
            let stale = try device.catalog(named: "shelf")
            try await Self.following(device, url) { _ in
                try await waitUntil("caught up after a reset") { try Self.same(device, server) }
            }
            #expect(try device.revision(of: "shelf") == stale.revision + 1)
            #expect(try device.followedCatalogs().first?.serverRevision == (try server.revision(of: "shelf")))
        }
    }
}
