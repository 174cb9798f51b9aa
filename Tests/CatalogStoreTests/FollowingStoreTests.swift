import CatalogDiff
import CatalogModel
@testable import CatalogStore
import CatalogTestSupport
import Foundation
import Testing

/// What a follower's store does (docs/Following-a-server.md): section patches rebuild the later
/// catalogue exactly, in memory and in the store; writes to a followed catalogue are queued in the
/// outbox in their own transaction, numbered, and nothing else is.
@Suite struct FollowingStoreTests {
    /// `b` made from `a` by random batches, some with section operations.
    static func pair(_ random: inout RandomEdits) -> (Catalog, Catalog) {
        let a = random.catalog()
        var b = a
        for _ in 0..<random.int(0...6) {
            if let next = try? b.applying(Batch(operations: [random.operation(on: b)])) { b = next }
        }
        return (a, b)
    }

    @Test func aPatchRebuildsTheLaterCatalogue() throws {
        var random = RandomEdits(seed: 31)
        for _ in 0..<500 {
            let (a, b) = Self.pair(&random)
            let patch = SectionPatch(from: a, to: b)
            #expect(try a.applying(patch).sections == b.sections)
            #expect(patch.isEmpty == (a.sections == b.sections))
            // Only what differs is sent.
            #expect(patch.sections.allSatisfy { section in a.sections.first { $0.id == section.id } != section })
        }
        // A patch made from another catalogue is refused.
        let a = Catalog(name: "c", sections: [Section(id: "x", kind: .icons)])
        #expect(throws: SectionPatch.Problem.unknownSection("y")) { try a.applying(SectionPatch(sections: [], order: ["x", "y"])) }
        #expect(throws: SectionPatch.Problem.sectionTwice("x")) { try a.applying(SectionPatch(sections: [], order: ["x", "x"])) }
        #expect(throws: SectionPatch.Problem.sectionLeftOut("z")) {
            try a.applying(SectionPatch(sections: [Section(id: "z", kind: .icons)], order: ["x"]))
        }
    }

    @Test func theStoreTakesAPatchInAsOneRevisionThatTheSimulatorAccepts() throws {
        var random = RandomEdits(seed: 77)
        let store = try CatalogStore.inMemory()
        for round in 0..<200 {
            var (a, b) = Self.pair(&random)
            a.name = "c\(round)"
            b.name = a.name
            let stored = try store.takeIn(a.name, patch: SectionPatch(from: Catalog(name: a.name), to: a), expecting: nil,
                                          serverRevision: 1)
            let before = try store.catalog(named: a.name)
            #expect(before.sections == a.sections)
            let result = try store.takeIn(a.name, patch: SectionPatch(from: a, to: b), expecting: stored.revision,
                                          serverRevision: 2)
            let after = try store.catalog(named: b.name)
            #expect(after.sections == b.sections)
            #expect(result.revision == before.revision + (a.sections == b.sections ? 0 : 1))
            #expect(result.changeset.violations(from: before, to: after) == [])
            // Not at the expected revision: refused, nothing written.
            #expect(throws: StoreError.self) {
                try store.takeIn(a.name, patch: SectionPatch(from: b, to: a), expecting: before.revision - 1, serverRevision: 3)
            }
            #expect(try store.catalog(named: b.name) == after)
        }
        try store.checkIntegrity()
    }

    /// A patch that would hold an item twice — twice in itself, or in a section it replaces while
    /// a section it leaves alone still holds it — is refused and writes nothing.
    @Test func aPatchThatWouldHoldAnItemTwiceIsRefused() throws {
        let store = try CatalogStore.inMemory()
        func book(_ id: String) -> Item { Item(id: id, content: .book(Book(title: id, cover: id))) }
        let catalog = Catalog(name: "c", sections: [
            Section(id: "a", kind: .bookshelf, capacity: 9, items: [book("a0"), book("a1")]),
            Section(id: "b", kind: .bookshelf, capacity: 9, items: [book("b0")]),
        ])
        let stored = try store.takeIn("c", patch: SectionPatch(from: Catalog(name: "c"), to: catalog), expecting: nil, serverRevision: 1)
        for patch in [
            SectionPatch(sections: [Section(id: "a", kind: .bookshelf, capacity: 9, items: [book("a0"), book("b0")])], order: nil),
            SectionPatch(sections: [Section(id: "a", kind: .bookshelf, capacity: 9, items: [book("a0"), book("a0")])], order: nil),
            SectionPatch(sections: [Section(id: "a", kind: .bookshelf, capacity: 9, items: [book("a0")]),
                                    Section(id: "b", kind: .bookshelf, capacity: 9, items: [book("b0"), book("a0")])], order: nil),
        ] {
            #expect(throws: StoreError.rejected(catalog: "c", BatchError(reason: .duplicateItemID(patch.sections.count == 2 ? "a0" : patch.sections[0].items[1].id)))) {
                try store.takeIn("c", patch: patch, expecting: stored.revision, serverRevision: 2)
            }
            #expect(try store.catalog(named: "c").sections == catalog.sections)
        }
        // Items moving between replaced sections, and out of a removed one, are fine.
        let moved = SectionPatch(sections: [Section(id: "b", kind: .bookshelf, capacity: 9, items: [book("b0"), book("a1"), book("a0")])], order: ["b"])
        _ = try store.takeIn("c", patch: moved, expecting: stored.revision, serverRevision: 2)
        #expect(try store.catalog(named: "c").sections.map { $0.items.map(\.id) } == [["b0", "a1", "a0"]])
        try store.checkIntegrity()
    }

    @Test func writesToAFollowedCatalogueAreQueuedInOrderAndNothingElseIs() throws {
        let store = try CatalogStore.inMemory()
        let books = (0..<4).map { Item(id: "b\($0)", content: .book(Book(title: "B\($0)", cover: "c"))) }
        try store.replace(Catalog(name: "shelf", sections: [
            Section(id: "a", kind: .bookshelf, capacity: 2, items: Array(books[0..<2])),
            Section(id: "b", kind: .bookshelf, capacity: 4, items: Array(books[2..<4])),
        ]))
        try store.replace(Catalog(name: "local", sections: [Section(id: "a", kind: .bookshelf, items: [])]))
        _ = try store.follow("shelf", server: "http://server")
        #expect(throws: StoreError.self) { try store.follow("shelf", server: "http://another") }
        try store.move(item: "b2", toSection: "a", index: 0, policy: .swap, in: "shelf")
        try store.move(item: "b3", toSection: "b", index: 1, in: "shelf")    // where it is: nothing changes, nothing queued
        #expect(throws: StoreError.self) { try store.move(item: "b3", toSection: "a", in: "shelf") }   // full: refused, not queued
        try store.apply(Batch(baseRevision: 2, operations: [.deleteItem(id: "b1")]), to: "shelf")
        try store.apply(Batch(operations: [.insertItem(section: "a", index: 0, item: books[0])]), to: "local")
        let outbox = try store.outbox()
        #expect(outbox.map(\.sequence) == [1, 2])
        #expect(outbox.allSatisfy { $0.catalog == "shelf" && $0.state == .pending })
        // The local revision is not sent: it is the copy's.
        #expect(outbox[1].batch == #"{"operations":[{"op":"deleteItem","id":"b1"}]}"#)
        // Answers: applied, then refused for good.
        try store.settle([(1, 9, nil)])
        try store.settle([(2, nil, RecordedAnswer(status: 404, body: "{}"))])
        #expect(try store.outbox().map(\.state) == [.acknowledged, .rejected])
        try store.removeRejected(upTo: 2)
        #expect(try store.outbox().map(\.sequence) == [1])
        // Numbers never repeat, even after the outbox empties.
        _ = try store.takeIn("shelf", patch: SectionPatch(sections: [], order: nil), expecting: try store.revision(of: "shelf"),
                             serverRevision: 9)
        #expect(try store.outbox().isEmpty)
        try store.move(item: "b0", toSection: "b", in: "shelf")
        #expect(try store.outbox().map(\.sequence) == [3])
        #expect(try store.followedCatalogs() == [FollowedCatalog(name: "shelf", server: "http://server", serverRevision: 9)])
    }

    /// A device database copied to another file (another device, a backup restored) numbers its
    /// new writes under client ids of its own, while the original goes on under its ids: two
    /// devices never send two different writes under one id and number (a server restored in
    /// between would take the copy's write for the original's, and the original's would be lost).
    /// The writes waiting at the copy keep their ids and numbers on both.
    @Test func aCopiedDeviceDatabaseNumbersNewWritesUnderIDsOfItsOwn() throws {
        let (path, folder) = try temporaryDatabasePath()
        defer { try? FileManager.default.removeItem(at: folder) }
        let books = (0..<4).map { Item(id: "b\($0)", content: .book(Book(title: "B\($0)", cover: "c"))) }
        let copyPath = folder.appendingPathComponent("copy.sqlite").path
        do {
            let store = try CatalogStore(path: path)
            try store.replace(Catalog(name: "shelf", sections: [Section(id: "a", kind: .bookshelf, capacity: 8, items: books)]))
            _ = try store.follow("shelf", server: "http://server")
            try store.move(item: "b0", toSection: "a", index: 3, in: "shelf")
            store.close()
            for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
                try FileManager.default.copyItem(atPath: path + suffix, toPath: copyPath + suffix)
            }
        }
        let original = try CatalogStore(path: path), copy = try CatalogStore(path: copyPath)
        let shared = try #require(try original.outbox().first)
        try original.move(item: "b1", toSection: "a", index: 3, in: "shelf")
        try copy.move(item: "b2", toSection: "a", index: 3, in: "shelf")
        let (mine, theirs) = (try original.outbox(), try copy.outbox())
        #expect(mine.first == shared && theirs.first == shared, "the waiting write keeps its id and number on both")
        #expect(mine[1].client == shared.client && mine[1].number == 2, "the original goes on under its id")
        #expect(theirs[1].client != shared.client && theirs[1].number == 1, "the copy numbers new writes under an id of its own")
        // Opened again, neither is taken for a copy once more.
        original.close()
        let reopened = try CatalogStore(path: path)
        try reopened.move(item: "b3", toSection: "a", index: 0, in: "shelf")
        #expect(try reopened.outbox().last.map { ($0.client, $0.number) }! == (shared.client, 3))
    }

    /// Writes that leave the outbox confirmed are kept, the last 1,000 of the catalogue; when the
    /// server's history changed, those numbered past the server's acknowledgement go back to the
    /// outbox as pending, in their order and under their numbers — and without a sign that the
    /// history changed, an acknowledgement moves nothing.
    @Test func confirmedWritesAreKeptForAServerThatLosesThem() throws {
        let store = try CatalogStore.inMemory()
        let books = (0..<2).map { Item(id: "b\($0)", content: .book(Book(title: "B\($0)", cover: "c"))) }
        try store.replace(Catalog(name: "shelf", sections: [
            Section(id: "a", kind: .bookshelf, capacity: 4, items: books), Section(id: "b", kind: .bookshelf, capacity: 4),
        ]))
        _ = try store.follow("shelf", server: "http://server")
        let count = CatalogStore.confirmedWritesKept + 5
        for index in 1...count {
            try store.move(item: "b0", toSection: index % 2 == 1 ? "b" : "a", index: 0, in: "shelf")
            try store.settle([(index, index + 1, nil)])
        }
        try store.stand("shelf", on: count + 1)
        #expect(try store.outbox().isEmpty)
        let kept = try store.writer.read { db in try Int.fetchAll(db, sql: "SELECT number FROM confirmed_write ORDER BY sequence") }
        #expect(kept == Array(6...count))
        let client = try #require(try store.following("shelf")?.client)
        // In step: an acknowledgement of every number moves nothing; nor does one of fewer without a sign.
        #expect(try store.reconcile("shelf", client: client, number: count, revision: count + 1) == (0, nil))
        #expect(try store.reconcile("shelf", client: client, number: count - 3, revision: 1) == (0, nil))
        #expect(try store.outbox().isEmpty)
        // The history changed: the server has numbers up to count - 3.
        let (resent, renamed) = try store.reconcile("shelf", client: client, number: count - 3, revision: 2, historyChanged: true)
        #expect(resent == 3 && renamed == nil)
        let back = try store.outbox()
        #expect(back.map(\.number) == [count - 2, count - 1, count] && back.allSatisfy { $0.state == .pending && $0.client == client })
        #expect(back.map(\.sequence) == [count - 2, count - 1, count])
        let left = try store.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM confirmed_write") }
        #expect(left == CatalogStore.confirmedWritesKept - 3)
    }
}
