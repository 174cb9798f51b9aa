import CatalogDiff
import CatalogModel
import Foundation
import GRDB
import Testing
@testable import CatalogStore

/// Deleting catalogues (`CatalogStore.delete`): all of a catalogue goes in one transaction, a
/// refused delete changes nothing, observers hear of it, and a name used again never repeats a
/// revision, so no client takes the new catalogue's changes for the old one's.
@Suite struct DeleteTests {
    static let other = Catalog(name: "other", sections: [Section(id: "x", kind: .icons, items: [
        Item(id: "i", content: .icon(Icon(name: "I", icon: "i"))),
    ])])

    @Test func aDeletedCatalogueIsGoneWithItsJournalAndOthersStay() throws {
        let (path, folder) = try temporaryDatabasePath()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try CatalogStore(path: path)
        try store.replace(ObservationTests.shelves)
        try store.replace(Self.other)
        try ObservationTests.move(store, "a0", to: "b", index: 0)
        let deleted = try store.delete("shelf")
        #expect(deleted == DeletedCatalog(name: "shelf", revision: 2, sections: 2, items: 4))
        #expect(throws: StoreError.unknownCatalog("shelf")) { try store.catalog(named: "shelf") }
        #expect(try store.summaries().map(\.name) == ["other"])
        #expect(try store.catalog(named: "other") == Self.other.with(revision: 1))
        let leftovers = try store.writer.read { db in
            try ["section", "item", "journal", "import"].map { table in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table) WHERE catalog_pk NOT IN (SELECT pk FROM catalog)") ?? -1
            }
        }
        #expect(leftovers == [0, 0, 0, 0])
        try store.checkIntegrity()
    }

    @Test func aRefusedDeleteChangesNothing() throws {
        let store = try CatalogStore.inMemory()
        try store.replace(ObservationTests.shelves)
        try ObservationTests.move(store, "a0", to: "b", index: 0)
        let before = try store.catalog(named: "shelf")
        #expect(throws: StoreError.unknownCatalog("nope")) { try store.delete("nope") }
        #expect(throws: StoreError.rejected(catalog: "shelf", BatchError(reason: .staleRevision(base: 1, current: 2)))) {
            try store.delete("shelf", ifRevision: 1)
        }
        // Several at once: all or none.
        #expect(throws: StoreError.unknownCatalog("nope")) { try store.delete([("shelf", nil), ("nope", nil)]) }
        #expect(try store.catalog(named: "shelf") == before)
        #expect(try store.delete("shelf", ifRevision: 2).revision == 2)
    }

    @Test func aNameUsedAgainGoesOnFromTheDeletedRevisions() async throws {
        let store = try CatalogStore.inMemory()
        try store.replace(ObservationTests.shelves)
        try ObservationTests.move(store, "a0", to: "b", index: 0)  // revision 2
        try store.delete("shelf")
        #expect(try store.revisionAfterDeletion(of: "shelf") == 3)
        // A dry run says what the import will say.
        let preview = try CatalogStore.previewReplacing([(Self.other.renamed("shelf"), nil)], in: store)
        #expect(preview.map(\.revision) == [4])
        let again = try store.replace(Self.other.renamed("shelf"))
        #expect(again.previousRevision == 3 && again.revision == 4)
        // A client that had the deleted catalogue at revision 2 is too far back: it reloads.
        #expect(throws: StoreError.revisionTooOld(catalog: "shelf", requested: 2, oldest: 3)) {
            try store.changes(in: "shelf", since: 2)
        }
        let resumed = try #require(try await store.observer(of: "shelf", from: 2).next(waitingAtMost: .seconds(10)))
        #expect(resumed.isReset && resumed.catalog == Self.other.renamed("shelf").with(revision: 4))
        // One at the deletion's revision gets the new content as its changes.
        let changes = try store.changes(in: "shelf", since: 3)
        #expect(changes.fromRevision == 3 && changes.toRevision == 4)
    }

    @Test func observersHearThatTheirCatalogueWasDeleted() async throws {
        let (path, folder) = try temporaryDatabasePath()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try CatalogStore(path: path)
        try store.replace(ObservationTests.shelves)
        let here = store.observer(of: "shelf")
        // Another store on the file: it hears of the delete through its poll.
        let elsewhere = try CatalogStore(path: path).observer(of: "shelf")
        #expect(try await here.next(waitingAtMost: .seconds(10))?.revision == 1)
        #expect(try await elsewhere.next(waitingAtMost: .seconds(10))?.revision == 1)
        try store.delete("shelf")
        for observer in [here, elsewhere] {
            await #expect(throws: StoreError.unknownCatalog("shelf")) {
                try await observer.next(waitingAtMost: .seconds(10))
            }
        }
    }
}

extension Catalog {
    func renamed(_ name: String) -> Catalog {
        var catalog = self
        catalog.name = name
        return catalog
    }
}
