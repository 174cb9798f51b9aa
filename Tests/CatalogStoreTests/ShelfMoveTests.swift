import CatalogDiff
import CatalogModel
import Foundation
import GRDB
import Testing
@testable import CatalogStore

/// The quick path for a book moved to another shelf with room gives exactly what the general
/// path gives: result, changeset, stored catalogue and journal.
@Suite("Quick moves between shelves")
struct ShelfMoveTests {
    struct Rollback: Error {}

    @Test("random moves: the quick path and the general path agree, and the journal rebuilds every revision")
    func quickEqualsGeneral() throws {
        var random = SplitMix64(seed: 77)
        let store = try CatalogStore.inMemory()
        var catalog = Catalog.generated(name: "shelf", items: 60, sections: 12, kind: .bookshelf, seed: 5)
        for s in catalog.sections.indices { catalog.sections[s].capacity = 4 + s % 4 }
        // Make the capacities hold: trim shelves that hold too many.
        for s in catalog.sections.indices { catalog.sections[s].items = Array(catalog.sections[s].items.prefix(catalog.sections[s].capacity!)) }
        let first = try store.replace(catalog).revision
        var quick = 0, general = 0
        for _ in 0..<400 {
            let current = try store.catalog(named: "shelf")
            let from = current.sections[Int.random(in: 0..<current.sections.count, using: &random)]
            guard !from.items.isEmpty else { continue }
            let book = from.items[Int.random(in: 0..<from.items.count, using: &random)].id
            let to = current.sections[Int.random(in: 0..<current.sections.count, using: &random)]
            let index: Int? = Bool.random(using: &random) ? nil : Int.random(in: -1...(to.items.count + 1), using: &random)
            let policy = [MovePolicy.reject, .displace, .swap][Int.random(in: 0..<3, using: &random)]
            let base: Int? = Int.random(in: 0..<10, using: &random) == 0 ? current.revision - 1 : nil
            let batch = Batch(baseRevision: base, operations: [.moveItem(id: book, toSection: to.id, index: index, policy: policy)])

            // The general path, rolled back.
            var expected: Result<(WriteResult, Catalog), StoreError>?
            var tookQuickPath = false
            _ = try? store.writer.write { db in
                tookQuickPath = try CatalogStore.moveToShelfWithRoom(batch, catalog: "shelf", in: db) != nil
                throw Rollback()
            }
            _ = try? store.writer.write { db in
                do {
                    let result = try CatalogStore.commit(try CatalogStore.edit("shelf", with: batch, in: db), catalog: "shelf", in: db)
                    expected = .success((result, try CatalogStore.loadCatalog(named: "shelf", in: db)))
                } catch let error as StoreError {
                    expected = .failure(error)
                }
                throw Rollback()
            }
            // The store's own path (quick when it can).
            switch (Result { () throws(StoreError) in try store.apply(batch, to: "shelf") }, expected!) {
            case (.success(let result), .success(let (generalResult, generalCatalog))):
                #expect(result == generalResult, "\(batch)")
                #expect(try store.catalog(named: "shelf") == generalCatalog)
                #expect(result.changeset.violations(from: current, to: generalCatalog) == [])
                if tookQuickPath { quick += 1 } else { general += 1 }
            case (.failure(let error), .failure(let generalError)):
                #expect(error == generalError)
                #expect(!tookQuickPath)
                #expect(try store.catalog(named: "shelf") == current)
            case (let got, let wanted):
                Issue.record("\(batch): store \(got), general path \(wanted)")
            }
        }
        #expect(quick > 50 && general > 20, "quick \(quick), general \(general)")
        // The journal, mixing both kinds of entries, rebuilds the first revision from the last.
        let last = try store.catalog(named: "shelf")
        let changes = try store.changes(in: "shelf", since: first)
        #expect(changes.violations(from: catalog.withRevision(first), to: last) == [])
        for since in stride(from: last.revision - 1, to: first, by: -37) {
            #expect(try store.changes(in: "shelf", since: since).toRevision == last.revision)
        }
        try store.checkIntegrity()
    }
}

extension Catalog {
    func withRevision(_ revision: Int) -> Catalog {
        var catalog = self
        catalog.revision = revision
        return catalog
    }
}
