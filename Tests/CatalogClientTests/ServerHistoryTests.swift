import CatalogModel
import CatalogServer
import CatalogStore
import CatalogTestSupport
import Foundation
import Testing
@testable import CatalogClient

/// A device follows one history: a server restored from a backup, or another database at the
/// server's address, is noticed whatever its revisions say; the device's acknowledged writes the
/// server no longer has are sent again; the app is told (docs/Following-a-server.md#when-the-servers-history-changes).
@Suite struct ServerHistoryTests {
    typealias Following = FollowingTests

    /// A server found at an earlier revision than one that acknowledged a write of the device —
    /// restored from a backup, then written past the copy's revision, so that its stream sends
    /// the catalogue whole without a history to check — lacks that write: it waits again and is
    /// sent, and the app is told. (Before, the write stayed acknowledged, and once the server
    /// passed its revision again it was taken as applied: lost.)
    @Test func aServerBelowAnAcknowledgedWriteWentBack() async throws {
        let (device, _) = try Following.deviceStore()
        let written = HostileServerTests.Asked()
        // The server at revision 250, with no record of the device's client.
        try await HostileServerTests.hostile(events: HostileServerTests.snapshot(at: 250), writeAnswer: "{}", written: written) { url in
            _ = try device.follow("shelf", server: url.absoluteString)
            _ = try device.takeIn("shelf", patch: SectionPatch(from: Catalog(name: "shelf"), to: Following.shelves), expecting: nil, serverRevision: 100)
            try await device.move(item: "b0", toSection: "c", index: 0, in: "shelf")
            let entry = try #require(try device.outbox().first)
            // Acknowledged at revision 300, by the server before its restore.
            try device.settle([(entry.sequence, 300, nil)])
            let client = try CatalogClient(store: device, server: url, retryingAfter: .milliseconds(10), atMost: .milliseconds(50))
            let events = client.events()
            let task = Task { try await client.run(following: ["shelf"]) }
            try await waitUntil("the write sent again") { written.times >= 1 }
            task.cancel()
            _ = await task.result
            #expect(try device.outbox().map(\.state) == [.pending])
            var heard = events.makeAsyncIterator()
            #expect(await heard.next() == .historyChanged(catalog: "shelf", resent: 1))
        }
    }

    /// The events a client reports, as they come.
    final class Reported: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [CatalogClientEvent] = []
        private var task: Task<Void, Never>?

        init(_ client: CatalogClient) {
            let events = client.events()
            task = Task { [weak self] in
                for await event in events { self?.add(event) }
            }
        }

        deinit { task?.cancel() }

        private func add(_ event: CatalogClientEvent) { lock.withLock { list.append(event) } }
        var all: [CatalogClientEvent] { lock.withLock { list } }
    }

    /// A backup of `original` as a restore brings it back: its catalogues, its devices' records
    /// and its identity.
    static func backUp(_ original: CatalogStore, into backup: CatalogStore) throws {
        try backup.restore([try original.archive(of: "shelf")], retired: [:], clients: try original.clientRecords(), replacing: true)
        try backup.adoptIdentity(try original.identity())
    }

    static func shelf(_ store: CatalogStore) -> [[String]] {
        ((try? store.catalog(named: "shelf"))?.sections ?? []).map { $0.items.map(\.id) }
    }

    /// The device's two moves are applied and acknowledged while its stream is down; then the
    /// server is restored from a backup taken before them, and others write there. Both moves
    /// are sent again and applied once on the restored server, the copy equals it, and the app
    /// hears that the history changed. (Before, the copy resumed on the backup's history and
    /// took the acknowledged moves as held by it: both were gone, never reported.)
    @Test func acknowledgedWritesARestoredServerLacksAreSentAgain() async throws {
        let original = try CatalogStore.inMemory()
        try original.replace(Following.shelves)
        let backup = try CatalogStore.inMemory()
        let (device, _) = try Following.deviceStore()
        try await Following.serving(original) { originalURL in
            try await Following.serving(backup) { backupURL in
                let (behind, streamsDown, streams) = (Current(originalURL), Current(false), FaultProxy.OpenStreams())
                let decide: @Sendable (FaultProxy.Seen) -> FaultProxy.Fault = { seen in
                    streamsDown.value && seen.path.contains("/events") ? .answer(FaultProxy.html(.badGateway)) : .pass
                }
                try await FaultProxy.run(toCurrent: { behind.value }, deciding: decide, streams: streams) { proxy in
                    try await Following.following(device, proxy) { client in
                        let reported = Reported(client)
                        try await waitUntil("the first snapshot") { try Following.same(device, original) }
                        try Self.backUp(original, into: backup)
                        streamsDown.value = true
                        streams.finishAll()
                        try await device.move(item: "b0", toSection: "c", index: 0, in: "shelf")
                        try await device.move(item: "a0", toSection: "b", index: 0, in: "shelf")
                        try await waitUntil("both moves acknowledged") {
                            let outbox = try client.outbox()
                            let revision = try original.revision(of: "shelf")
                            return outbox.count == 2 && outbox.allSatisfy { $0.state == .acknowledged } && revision == 3
                        }
                        // The restore; someone writes there before the device comes back.
                        behind.value = backupURL
                        try await backup.move(item: "a1", toSection: "c", in: "shelf")
                        streamsDown.value = false
                        try await waitUntil("the moves on the restored server: \(Self.shelf(backup)), device \(Self.shelf(device))") {
                            let revision = try backup.revision(of: "shelf")
                            return try client.outbox().isEmpty && Following.same(device, backup) && revision == 4 && !reported.all.isEmpty
                        }
                        #expect(Self.shelf(backup) == [["a2"], ["a0"], ["b0", "a1"]])
                        #expect(reported.all == [.historyChanged(catalog: "shelf", resent: 2)])
                    }
                }
            }
        }
    }

    /// The server is restored from a backup taken before two moves of the device, which the
    /// copy had confirmed, and before the device comes back, passes the revision the copy stood
    /// on with other writes: the copy takes the restored server's catalogue (a snapshot), not its
    /// changes on top of another history; the device's two moves, kept since they were
    /// confirmed, are sent again and applied once; the app is told. (Before, the device resumed
    /// from its revision — sections nobody touched again stayed as the lost history left them —
    /// and the moves were gone.)
    @Test func aRestoredServerThatPassedTheCopysRevisionGetsTheDevicesWritesAgain() async throws {
        let original = try CatalogStore.inMemory()
        try original.replace(Following.shelves)
        let backup = try CatalogStore.inMemory()
        try Self.backUp(original, into: backup)
        let (device, _) = try Following.deviceStore()
        try await Following.serving(original) { originalURL in
            try await Following.serving(backup) { backupURL in
                let (behind, streams) = (Current(originalURL), FaultProxy.OpenStreams())
                try await FaultProxy.run(toCurrent: { behind.value }, streams: streams) { proxy in
                    try await Following.following(device, proxy) { client in
                        let reported = Reported(client)
                        try await waitUntil("the first snapshot") { try Following.same(device, original) }
                        // Revision 3 on the original: the device's two moves, confirmed.
                        try await device.move(item: "a1", toSection: "c", index: 0, in: "shelf")
                        try await device.move(item: "b0", toSection: "a", index: 0, in: "shelf")
                        try await waitUntil("in step at 3") {
                            try client.outbox().isEmpty && Following.same(device, original) && device.followedCatalogs().first?.serverRevision == 3
                        }
                        // The backup (revision 1) goes on to revision 4 with other moves.
                        for (item, shelf) in [("a2", "b"), ("a0", "b"), ("b0", "c")] {
                            try await backup.move(item: item, toSection: shelf, in: "shelf")
                        }
                        behind.value = backupURL
                        streams.finishAll()
                        try await waitUntil("the moves on the restored server: \(Self.shelf(backup)), device \(Self.shelf(device))") {
                            let revision = try backup.revision(of: "shelf")
                            return try client.outbox().isEmpty && Following.same(device, backup) && revision == 6 && !reported.all.isEmpty
                        }
                        #expect(Self.shelf(backup) == [["b0"], ["a2", "a0"], ["a1"]])
                        #expect(reported.all == [.historyChanged(catalog: "shelf", resent: 2)])
                    }
                }
            }
        }
    }

    /// Another database answers at the server's address, at the copy's revision with the same
    /// catalogue: the device notices by its identity, takes its snapshot, and tells the app.
    /// `catalog copy`'s whole copy keeps the identity, so a server moved that way is no other.
    @Test func anotherDatabaseAtTheServersAddressIsNoticedByItsIdentity() async throws {
        let first = try CatalogStore.inMemory()
        try first.replace(Following.shelves)
        let other = try CatalogStore.inMemory()
        try other.replace(Following.shelves)
        #expect(try first.identity() != other.identity())
        let (device, _) = try Following.deviceStore()
        try await Following.serving(first) { firstURL in
            try await Following.serving(other) { otherURL in
                let (behind, streams) = (Current(firstURL), FaultProxy.OpenStreams())
                try await FaultProxy.run(toCurrent: { behind.value }, streams: streams) { proxy in
                    try await Following.following(device, proxy) { client in
                        let reported = Reported(client)
                        try await waitUntil("the first snapshot") { try Following.same(device, first) }
                        #expect(try device.following("shelf")?.serverIdentity == first.identity())
                        behind.value = otherURL
                        streams.finishAll()
                        try await waitUntil("the other database's identity") {
                            try device.following("shelf")?.serverIdentity == other.identity() && reported.all.count == 1
                        }
                        #expect(reported.all == [.historyChanged(catalog: "shelf", resent: 0)])
                        // It is followed as any server: its next write reaches the copy.
                        try await other.move(item: "a0", toSection: "c", in: "shelf")
                        try await waitUntil("the other database's write") { try Following.same(device, other) }
                        _ = client
                    }
                }
            }
        }
    }

    /// A device database copied before the first device wrote, and not noticed as a copy when
    /// opened (made before the database knew its file): when the copy follows, the server's
    /// acknowledgement names numbers of its client id past any it gave — it takes a new id at
    /// once, tells the app, and its own offline move is applied. (Before, it noticed only when a
    /// write of its own was refused as "number taken".)
    @Test func aCopiedDeviceIsNoticedByTheServersAcknowledgement() async throws {
        let server = try CatalogStore.inMemory()
        try server.replace(Following.shelves)
        let (one, onePath) = try Following.deviceStore()
        try await Following.serving(server) { url in
            try await NumberingTests.sync(one, url, ["shelf"], until: "the first snapshot") { try NumberingTests.inStep(one, server, ["shelf"]) }
            try one.forgetFileIdentity()
            let (first, second) = try Following.copyDevice(one, at: onePath, to: onePath + "-copy.sqlite")
            let sharedID = try #require(try second.following("shelf")?.client)
            try await first.move(item: "b0", toSection: "c", index: 0, in: "shelf")
            try await first.move(item: "a0", toSection: "c", index: 0, in: "shelf")
            try await NumberingTests.sync(first, url, ["shelf"], until: "the first device's moves") { try NumberingTests.inStep(first, server, ["shelf"]) }
            let client = try CatalogClient(store: second, server: url, retryingAfter: .milliseconds(20), atMost: .milliseconds(200))
            let reported = Reported(client)
            let task = Task { try await client.run(following: ["shelf"]) }
            defer { task.cancel() }
            try await waitUntil("a new client id") { try second.following("shelf")?.client != sharedID && !reported.all.isEmpty }
            #expect(reported.all == [.newClientID(catalog: "shelf")])
            try await second.move(item: "a1", toSection: "b", index: 0, in: "shelf")
            try await waitUntil("the second device's move") { try NumberingTests.inStep(second, server, ["shelf"]) }
            #expect(try server.catalog(named: "shelf").sections.map { $0.items.map(\.id) } == [["a2"], ["a1"], ["a0", "b0"]])
            task.cancel()
            _ = await task.result
        }
    }
}
