import CatalogDiff
import CatalogModel
import CatalogStoreCore
import Foundation
import GRDB

extension CatalogStore {
    /// Stores `catalog`, replacing the content of any catalogue of the same name (or creating it),
    /// in one transaction that raises its revision by one.
    @discardableResult
    public func replace(_ catalog: Catalog, record: ImportRecord? = nil) throws(StoreError) -> WriteResult {
        try replace([(catalog, record)])[0]
    }

    /// Stores several catalogues in one transaction: all of them land, or none does.
    ///
    /// - Parameters:
    ///   - catalogs: the catalogues, each with the record of the file it came from (or nil).
    ///   - progress: called now and then with (items written, items in all).
    /// - Throws: ``/CatalogStoreCore/StoreError/invalidCatalog(_:)`` before touching the database when a catalogue
    ///   breaks a rule of the model; ``/CatalogStoreCore/StoreError/database(_:)`` when SQLite refuses the write.
    @discardableResult
    public func replace(
        _ catalogs: [(Catalog, ImportRecord?)],
        progress: ((_ written: Int, _ total: Int) -> Void)? = nil
    ) throws(StoreError) -> [WriteResult] {
        let catalogs = try StoreRules.checkedForReplacing(catalogs)
        let total = catalogs.reduce(0) { $0 + $1.0.itemCount }
        return try write { db in
            var writer = CatalogWriter(db: db, total: total, progress: progress)
            return try catalogs.map { catalog, record in try writer.replace(catalog, record: record) }
        }
    }
}

extension CatalogStore {
    /// What ``replace(_:progress:)`` would make of `catalogs` in `store` now, without writing:
    /// for each, the revision it would get and the changeset from its stored content (from an
    /// empty catalogue when there is none, or no store: a database not created yet), refused for
    /// the same reasons. Nothing is written.
    package static func previewReplacing(_ catalogs: [(Catalog, ImportRecord?)], in store: CatalogStore?) throws(StoreError) -> [WriteResult] {
        var results: [WriteResult] = []
        for (catalog, _) in try StoreRules.checkedForReplacing(catalogs) {
            var stored = Catalog(name: catalog.name)
            do {
                if let store { stored = try store.catalog(named: catalog.name) }
            } catch .unknownCatalog {
                stored.revision = try store?.revisionAfterDeletion(of: catalog.name) ?? 0
            }
            results.append(try StoreRules.replacement(of: stored, by: catalog))
        }
        return results
    }

}

/// Writes whole catalogues with prepared statements inside one transaction.
struct CatalogWriter {
    let db: Database
    let total: Int
    let progress: ((Int, Int) -> Void)?
    private var written = 0

    init(db: Database, total: Int, progress: ((Int, Int) -> Void)?) {
        self.db = db
        self.total = total
        self.progress = progress
    }

    mutating func replace(_ catalog: Catalog, record: ImportRecord?) throws -> WriteResult {
        // The old content, read inside the same transaction, for the changeset.
        let existing = try CatalogStore.catalogRow(named: catalog.name, in: db)
        let old = try existing.map { try CatalogStore.loadCatalog(pk: $0.pk, named: catalog.name, revision: $0.revision, in: db) }
            ?? Catalog(name: catalog.name)
        // A new catalogue goes on from the revisions of a deleted one of the same name.
        try db.execute(sql: StoreSQL.insertCatalog(name: "?1"), arguments: [catalog.name])
        let (catalogPK, previousRevision) = try CatalogStore.catalogRow(named: catalog.name, in: db)!

        try db.execute(sql: "DELETE FROM item WHERE catalog_pk = ?", arguments: [catalogPK])
        try db.execute(sql: "DELETE FROM section WHERE catalog_pk = ?", arguments: [catalogPK])
        try insertContent(of: catalog, catalogPK: catalogPK)

        let revision = try Int.fetchOne(db, sql: "UPDATE catalog SET revision = revision + 1 WHERE pk = ? RETURNING revision", arguments: [catalogPK])!
        if let record {
            try db.execute(sql: """
                INSERT INTO import (catalog_pk, revision, source, format, shape, sections, items, derived_ids, duplicates, ignored_keys, imported_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [catalogPK, revision, record.source, record.format, record.shape, catalog.sections.count,
                                 catalog.itemCount, record.derivedIDs, record.duplicates, record.ignoredKeys,
                                 ISO8601DateFormatter().string(from: Date())])
        }
        try CatalogStore.verifyPositions(ofCatalog: catalogPK, named: catalog.name, in: db)
        var new = catalog
        new.revision = revision
        try CatalogStore.journal(RevisionPatch(from: new, to: old), catalogPK: catalogPK, revision: revision, in: db)
        progress?(written, total)
        var stored = old
        stored.revision = previousRevision
        return try StoreRules.replacement(of: stored, by: new)
    }

    /// Inserts the sections and items of `catalog` into the empty catalogue `catalogPK`, with
    /// fresh order keys.
    mutating func insertContent(of catalog: Catalog, catalogPK: Int64) throws {
        let insertSection = try db.cachedStatement(sql: """
            INSERT INTO section (catalog_pk, id, position, kind, title, capacity) VALUES (?, ?, ?, ?, ?, ?)
            """)
        let items = try ItemInserter(db: db)
        for (position, section) in catalog.sections.enumerated() {
            try insertSection.execute(arguments: [catalogPK, section.id, position, section.kind.rawValue, section.title, section.capacity])
            let sectionPK = db.lastInsertedRowID
            for (itemPosition, item) in section.items.enumerated() {
                try items.insert(item, catalogPK: catalogPK, sectionPK: sectionPK, key: OrderKeys.key(atIndex: itemPosition))
                written += 1
                if written & 4095 == 0 { progress?(written, total) }
            }
        }
    }
}
