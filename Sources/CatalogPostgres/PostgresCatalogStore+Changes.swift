import CatalogDiff
import CatalogModel
import CatalogStoreCore
import PostgresNIO

extension PostgresCatalogStore {
    /// One staged changeset from revision `revision` of the catalogue to its current revision,
    /// rebuilt through the journal as SQLite's store does (``CatalogStore/changes(in:since:)``),
    /// from one snapshot of the database.
    ///
    /// - Throws: ``StoreError/revisionTooOld(catalog:requested:oldest:)``,
    ///   ``StoreError/revisionNotReached(catalog:requested:current:)``, ``StoreError/unknownCatalog(_:)``.
    public func changes(in name: String, since revision: Int) async throws(StoreError) -> Changeset {
        let (old, current, restoredContent, _) = try await revisions(of: name, since: revision)
        return try StoreRules.changeset(from: old, to: current, restoredContent: restoredContent)
    }

    /// The catalogue as it stood at `revision`, rebuilt through the journal (see
    /// ``CatalogDatabase/catalog(named:at:)``).
    public func catalog(named name: String, at revision: Int) async throws(StoreError) -> Catalog {
        try await revisions(of: name, since: revision).old
    }

    /// The last `count` writes of the catalogue, newest first, as ``CatalogStore/history(of:count:)``.
    public func history(of name: String, count: Int) async throws(StoreError) -> [Changeset] {
        // Never more than asked: a write may land between the two reads.
        let count = max(0, count)
        let current = try await revision(of: name)
        do {
            return Array(try await revisions(of: name, since: max(0, current - count), keepingEach: true).history.prefix(count))
        } catch .revisionTooOld(_, _, let oldest) where oldest > current - count {
            return Array(try await revisions(of: name, since: oldest, keepingEach: true).history.prefix(count))
        }
    }

    /// Revision `revision` of the catalogue, rebuilt through the journal, the current one, and
    /// whether the journal brought back any content.
    ///
    /// With `atLeast`, "current" may be the kept snapshot of a revision from `atLeast` on instead
    /// of the latest (which would mean reading the whole catalogue again): observers woken by a
    /// stream of writes then all reach the one revision kept, and from there go on in step.
    func revisions(of name: String, since revision: Int, atLeast: Int? = nil, keepingEach: Bool = false) async throws(StoreError)
        -> (old: Catalog, current: Catalog, restoredContent: Bool, history: [Changeset]) {
        let name = Identifier.canonical(name)
        let (logger, snapshots) = (self.logger, self.snapshots)
        return try await snapshotRead { connection in
            guard let (catalogPK, currentRevision) = try await Self.catalogRow(named: name, on: connection, logger: logger) else {
                throw StoreError.unknownCatalog(name)
            }
            guard revision >= 0, revision <= currentRevision else {
                throw StoreError.revisionNotReached(catalog: name, requested: revision, current: currentRevision)
            }
            func tooOld() async throws -> StoreError {
                var oldest: Int?
                for try await value in try await connection.query("SELECT min(revision) FROM journal WHERE catalog_pk = \(catalogPK)",
                                                                  logger: logger).decode(Int64?.self) { oldest = value.map(Int.init) }
                return StoreError.revisionTooOld(catalog: name, requested: revision, oldest: max(0, (oldest ?? currentRevision + 1) - 1))
            }
            // Patches of the newest revisions, read already (to bring a kept snapshot forward).
            let (current, read) = try await Self.present(named: name, pk: catalogPK, revision: currentRevision,
                                                         atLeast: atLeast.map { max($0, revision) }, snapshots: snapshots,
                                                         on: connection, logger: logger)
            // Every revision after the requested one must still be journalled: undone newest first,
            // those read already without reading them again.
            var rewinder = JournalRewinder(current)
            rewinder.keepsEach = keepingEach
            var expected = current.revision
            for patch in read.reversed() where expected > revision {
                try rewinder.rewind(patch)
                expected -= 1
            }
            if expected > revision {
                let rows = try await connection.query("""
                    SELECT revision, patch FROM journal WHERE catalog_pk = \(catalogPK) AND revision > \(Int64(revision))
                        AND revision <= \(Int64(expected)) ORDER BY revision DESC
                    """, logger: logger)
                for try await (number, text) in rows.decode((Int64, String).self) {
                    guard Int(number) == expected else { break }
                    try rewinder.rewind(try RevisionPatch.decoded(text))
                    expected -= 1
                }
            }
            guard expected == revision else { throw try await tooOld() }
            return (rewinder.catalog, current, rewinder.restoredContent, keepingEach ? try rewinder.history() : [])
        }
    }

    /// Runs `body` in a read-only transaction that sees one snapshot of the database throughout
    /// (REPEATABLE READ): a catalogue and its journal read in it agree.
    func snapshotRead<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws(StoreError) -> Result {
        try await explicitTransaction("START TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY", ending: "COMMIT", body)
    }

    /// The catalogue with row key `catalogPK` at its revision `revision` as `connection`'s
    /// snapshot sees it — or, with `atLeast`, the kept snapshot of any revision from `atLeast` to
    /// `revision` — with the journal's patches read to get there (oldest first). Kept when it is;
    /// else the kept snapshot brought forward through the journal when that reads less than the
    /// whole catalogue; else loaded whole. What it reads is kept for the next read.
    static func present(named name: String, pk catalogPK: Int64, revision: Int, atLeast: Int?, snapshots: SnapshotCache,
                        on connection: PostgresConnection, logger: Logger) async throws -> (Catalog, [RevisionPatch]) {
        if let kept = kept(named: name, pk: catalogPK, revision: revision, atLeast: atLeast, snapshots: snapshots) { return (kept, []) }
        if let (pk, kept) = snapshots.latest(named: name), pk == catalogPK, bringsForward(kept, to: revision),
           let (advanced, patches) = try await advance(kept, to: revision, catalogPK: catalogPK, on: connection, logger: logger) {
            snapshots.keep(advanced, pk: catalogPK)
            return (advanced, patches)
        }
        return (try await loadWhole(named: name, snapshots: snapshots, on: connection, logger: logger), [])
    }

    /// The whole catalogue as one statement reads it (its rows and revision agree), kept for the
    /// next read.
    static func loadWhole(named name: String, snapshots: SnapshotCache, on connection: PostgresConnection,
                          logger: Logger) async throws -> Catalog {
        guard let (pk, loaded) = try await loadCatalog(named: name, on: connection, logger: logger) else {
            throw StoreError.unknownCatalog(name)
        }
        snapshots.keep(loaded, pk: pk)
        return loaded
    }

    /// The kept snapshot of the catalogue with row key `catalogPK`, whose row says `revision`, if
    /// it serves: at that revision, or with `atLeast` at any revision from `atLeast` to it.
    static func kept(named name: String, pk catalogPK: Int64, revision: Int, atLeast: Int?, snapshots: SnapshotCache) -> Catalog? {
        if let kept = snapshots.catalog(pk: catalogPK, named: name, revision: revision) { return kept }
        guard let atLeast, let (pk, kept) = snapshots.latest(named: name), pk == catalogPK,
              kept.revision >= atLeast, kept.revision <= revision else { return nil }
        return kept
    }

    /// Whether a kept snapshot behind `revision` is brought forward through the journal rather
    /// than the catalogue loaded whole: up to as many revisions as it has items (each write's
    /// patch then costs about what an item's row does), and at least 256.
    static func bringsForward(_ kept: Catalog, to revision: Int) -> Bool {
        kept.revision < revision && revision - kept.revision <= max(256, kept.itemCount)
    }

    /// `kept` brought to revision `target` by reading only the sections whose items the writes
    /// in between changed, when the journal says that is all they changed (the commonest case:
    /// moves, through another instance), with the journal's patches of those writes, oldest
    /// first; nil when a write did more, or the journal has a gap.
    static func advance(_ kept: Catalog, to target: Int, catalogPK: Int64, on connection: PostgresConnection,
                        logger: Logger) async throws -> (Catalog, [RevisionPatch])? {
        var touched = Set<String>()
        var patches: [RevisionPatch] = []
        var expected = kept.revision + 1
        let rows = try await connection.query("""
            SELECT revision, patch FROM journal WHERE catalog_pk = \(catalogPK) AND revision > \(Int64(kept.revision))
                AND revision <= \(Int64(target)) ORDER BY revision
            """, logger: logger)
        for try await (number, text) in rows.decode((Int64, String).self) {
            let patch = try RevisionPatch.decoded(text)
            guard Int(number) == expected, let sections = patch.sectionsWithChangedItemsOnly else { return nil }
            touched.formUnion(sections)
            patches.append(patch)
            expected += 1
        }
        guard expected == target + 1 else { return nil }
        var positions: [String: Int] = [:]
        for (position, section) in kept.sections.enumerated() { positions[section.id] = position }
        var catalog = kept
        for id in touched {
            guard let position = positions[id] else { return nil }
            catalog.sections[position].items = []
        }
        let items = try await connection.query("""
            SELECT s.id, \(unescaped: ItemRows.columns("i")) FROM section s JOIN item i ON i.section_pk = s.pk
            WHERE s.catalog_pk = \(catalogPK) AND s.id = ANY(\(Array(touched))) ORDER BY s.id, i.position
            """, logger: logger)
        for try await row in items {
            let row = row.makeRandomAccess()
            guard let position = positions[try row[0].decode(String.self)] else { return nil }
            catalog.sections[position].items.append(try ItemRows.item(row, at: 1))
        }
        catalog.revision = target
        return (catalog, patches)
    }

    /// How many revisions of each catalogue the journal keeps at least.
    public func journalRevisions() async throws(StoreError) -> Int {
        let logger = self.logger
        return try await withConnection { connection in
            for try await value in try await connection.query("SELECT value FROM setting WHERE name = 'journal_revisions'", logger: logger)
                .decode(Int64.self) { return Int(value) }
            return StoreRules.defaultJournalRevisions
        }
    }

    /// Makes the journal keep at least `count` revisions of each catalogue, for every instance.
    ///
    /// - Throws: ``StoreError/invalidSetting(_:)`` outside ``CatalogStore/journalRevisionsRange``.
    public func setJournalRevisions(_ count: Int) async throws(StoreError) {
        let range = StoreRules.journalRevisionsRange
        guard range.contains(count) else {
            throw .invalidSetting("the journal keeps from \(range.lowerBound) to \(range.upperBound) revisions of each catalogue, not \(count)")
        }
        let logger = self.logger
        _ = try await withConnection { connection in
            try await connection.query("""
                INSERT INTO setting (name, value) VALUES ('journal_revisions', \(Int64(count)))
                ON CONFLICT (name) DO UPDATE SET value = excluded.value
                """, logger: logger)
        }
    }

    /// Checks the whole database: every catalogue's sections at positions 0..<n, no section over
    /// its capacity or holding an item of another kind, every name and id in canonical form
    /// (order keys and ids are unique by the schema's constraints). Throws the first problem.
    public func checkIntegrity() async throws(StoreError) {
        let logger = self.logger
        try await snapshotRead { connection in
            var catalogs: [(Int64, String)] = []
            for try await row in try await connection.query("SELECT pk, name FROM catalog ORDER BY name COLLATE \"C\"", logger: logger)
                .decode((Int64, String).self) { catalogs.append(row) }
            if let problem = StoreRules.nonCanonicalID(in: catalogs.map(\.1), catalog: nil) { throw problem }
            for (pk, name) in catalogs {
                try await Self.verify(sections: nil, catalog: name, catalogPK: pk, checkOrder: true, on: connection, logger: logger)
                for table in ["section", "item"] {
                    let rows = try await connection.query("SELECT id FROM \(unescaped: table) WHERE catalog_pk = \(pk)", logger: logger)
                    var ids: [String] = []
                    for try await id in rows.decode(String.self) { ids.append(id) }
                    if let problem = StoreRules.nonCanonicalID(in: ids, catalog: name) { throw problem }
                }
            }
        }
    }
}
