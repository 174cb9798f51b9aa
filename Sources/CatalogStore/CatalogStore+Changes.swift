import CatalogDiff
import CatalogModel
import CatalogStoreCore
import GRDB

extension CatalogStore {
    /// How many revisions of each catalogue the journal keeps at least, unless the database was
    /// set to keep another number (``setJournalRevisions(_:)``).
    public static let defaultJournalRevisions = StoreRules.defaultJournalRevisions

    /// The numbers of revisions a journal may be set to keep.
    public static let journalRevisionsRange = StoreRules.journalRevisionsRange

    /// How many revisions of each catalogue this database's journal keeps at least:
    /// ``changes(in:since:)`` and the observers reach back this far (and up to 63 revisions
    /// further), past that a client reloads the snapshot.
    public func journalRevisions() throws(StoreError) -> Int {
        try read { db in try Self.journalRevisions(in: db) }
    }

    /// Makes this database's journal keep at least `count` revisions of each catalogue. The
    /// setting is stored in the database, so every process that writes it keeps the journal as
    /// long from its next write on. A longer journal fills as writes come; a shorter one is cut
    /// back at the next pruning (every 64 revisions of a catalogue).
    ///
    /// What it costs: a journal entry holds what rebuilds the revision before it — for a move
    /// between shelves, about 100 bytes with its index entry; for a batch, the previous version
    /// of the sections it changed (docs/Live-updates.md).
    ///
    /// - Throws: ``/CatalogStoreCore/StoreError/invalidSetting(_:)`` outside ``journalRevisionsRange``.
    public func setJournalRevisions(_ count: Int) throws(StoreError) {
        guard Self.journalRevisionsRange.contains(count) else {
            throw .invalidSetting("the journal keeps from \(Self.journalRevisionsRange.lowerBound) to \(Self.journalRevisionsRange.upperBound) revisions of each catalogue, not \(count)")
        }
        try writeWithoutRevision { db in
            try db.execute(sql: """
                INSERT INTO setting (name, value) VALUES ('journal_revisions', ?)
                ON CONFLICT (name) DO UPDATE SET value = excluded.value
                """, arguments: [count])
        }
    }

    static func journalRevisions(in db: Database) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT value FROM setting WHERE name = 'journal_revisions'"))
            ?? defaultJournalRevisions
    }

    /// One staged changeset from revision `revision` of the catalogue to its current revision,
    /// with `fromRevision` and `toRevision` set; empty when `revision` is current.
    ///
    /// The journal rebuilds the old revision from the current snapshot, and the diff of the two
    /// is the changeset, so however many writes happened in between, a client animates one
    /// changeset that UIKit accepts.
    ///
    /// - Throws: ``/CatalogStoreCore/StoreError/revisionTooOld(catalog:requested:oldest:)`` beyond the journal's
    ///   reach, ``/CatalogStoreCore/StoreError/revisionNotReached(catalog:requested:current:)`` for a revision the
    ///   catalogue has not reached, ``/CatalogStoreCore/StoreError/unknownCatalog(_:)``.
    public func changes(in name: String, since revision: Int) throws(StoreError) -> Changeset {
        let (old, current, restoredContent, _) = try revisions(of: name, since: revision)
        return try StoreRules.changeset(from: old, to: current, restoredContent: restoredContent)
    }

    /// The catalogue as it stood at `revision`, rebuilt through the journal (see
    /// ``/CatalogStoreCore/CatalogDatabase/catalog(named:at:)``).
    public func catalog(named name: String, at revision: Int) throws(StoreError) -> Catalog {
        try revisions(of: name, since: revision).old
    }

    /// The last `count` writes of the catalogue, newest first, each as the changeset from the
    /// revision before it to it (with `fromRevision` and `toRevision`): the catalogue's history as
    /// far back as the journal reaches. Empty for a catalogue at revision 0.
    ///
    /// - Throws: ``/CatalogStoreCore/StoreError/unknownCatalog(_:)``.
    public func history(of name: String, count: Int) throws(StoreError) -> [Changeset] {
        // Never more than asked: a write may land between the two reads.
        let count = max(0, count)
        let current = try revision(of: name)
        do {
            return Array(try revisions(of: name, since: max(0, current - count), keepingEach: true).history.prefix(count))
        } catch .revisionTooOld(_, _, let oldest) where oldest > current - count {
            return Array(try revisions(of: name, since: oldest, keepingEach: true).history.prefix(count))
        }
    }

    /// Revision `revision` of the catalogue, rebuilt through the journal, and the current one, and
    /// whether the journal brought back any content (see ``JournalRewinder``); with
    /// `keepingEach`, the changeset of each write in between too (newest first). The errors are
    /// those of ``changes(in:since:)``.
    func revisions(of name: String, since revision: Int, keepingEach: Bool = false) throws(StoreError)
        -> (old: Catalog, current: Catalog, restoredContent: Bool, history: [Changeset]) {
        try read { db in
            // The refusals first, from the catalogue's row and the journal's oldest entry: a
            // client asking for a revision out of reach costs two lookups, not a snapshot.
            guard let (catalogPK, currentRevision) = try Self.catalogRow(named: name, in: db) else {
                throw StoreError.unknownCatalog(name)
            }
            guard revision >= 0, revision <= currentRevision else {
                throw StoreError.revisionNotReached(catalog: name, requested: revision, current: currentRevision)
            }
            func tooOld() throws -> StoreError {
                let oldest = try Int.fetchOne(db, sql: "SELECT min(revision) FROM journal WHERE catalog_pk = ?", arguments: [catalogPK])
                return StoreError.revisionTooOld(catalog: name, requested: revision, oldest: max(0, (oldest ?? currentRevision + 1) - 1))
            }
            if revision < currentRevision,
               try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM journal WHERE catalog_pk = ? AND revision = ?)",
                                 arguments: [catalogPK, revision + 1]) != true {
                throw try tooOld()
            }
            let current = try currentCatalog(pk: catalogPK, named: name, revision: currentRevision, in: db)
            // Every revision after the requested one must still be journalled: undone newest
            // first, each patch read from the row's bytes as it comes.
            var rewinder = JournalRewinder(current)
            rewinder.keepsEach = keepingEach
            var expected = current.revision
            try RawStatement(db, "SELECT revision, patch FROM journal WHERE catalog_pk = ? AND revision > ? ORDER BY revision DESC")
                .forEach(.integer(catalogPK), .integer(Int64(revision))) { row in
                    guard row.int(0) == expected else { return false }
                    try rewinder.rewind(row.withText(1) { try RevisionPatch.decoded($0) })
                    expected -= 1
                    return true
                }
            guard expected == revision else { throw try tooOld() }
            return (rewinder.catalog, current, rewinder.restoredContent, keepingEach ? try rewinder.history() : [])
        }
    }

    /// Writes the patch that rebuilds the previous revision; every `StoreRules.journalPruningInterval`
    /// revisions, forgets those past the number the database keeps.
    static func journal(_ patch: RevisionPatch, catalogPK: Int64, revision: Int, in db: Database) throws {
        try RawStatement(db, "INSERT INTO journal (catalog_pk, revision, patch) VALUES (?, ?, ?)")
            .execute(.integer(catalogPK), .integer(Int64(revision)), .text(try patch.encoded()))
        if StoreRules.prunesJournal(afterWriting: revision) {
            try db.cachedStatement(sql: "DELETE FROM journal WHERE catalog_pk = ? AND revision <= ?")
                .execute(arguments: [catalogPK, revision - journalRevisions(in: db)])
        }
    }
}
