import CatalogDiff
import CatalogModel
import CatalogStoreCore
import PostgresNIO

extension PostgresCatalogStore {
    /// Applies a batch (docs/Batches-and-moves.md) to a catalogue in one transaction: every
    /// operation in order, each checked by the same editor as SQLite's store; on any failure
    /// nothing is written and the revision stays.
    ///
    /// The transaction first locks the catalogue's row: the writes to one catalogue, from any
    /// number of processes, take turns, so each sees the one before it and raises the revision by
    /// exactly one. Batches of items only (moves, the usual write) that arrive together are
    /// written together, each still its own revision (``writeItems(_:to:)``).
    ///
    /// - Throws: ``StoreError/rejected(catalog:_:)``, ``StoreError/unknownCatalog(_:)``,
    ///   ``StoreError/database(_:)``, ``StoreError/unavailable(location:reason:)``.
    @discardableResult
    public func apply(_ batch: Batch, to catalog: String) async throws(StoreError) -> WriteResult {
        let (batch, name, logger) = (batch.canonicalized(), Identifier.canonical(catalog), self.logger)
        if Self.isCombined(batch) {
            return try await itemWrites.write(batch, to: name, with: self).get()
        }
        let result = try await transaction { connection in try await Self.write(batch, to: name, on: connection, logger: logger) }
        didWrite(result)
        return result
    }

    /// What ``apply(_:to:)`` would do — the same checks and errors, the revision it would make
    /// and its changeset — in a transaction that is rolled back: nothing is written.
    public func preview(_ batch: Batch, to catalog: String) async throws(StoreError) -> WriteResult {
        let (batch, name, logger) = (batch.canonicalized(), Identifier.canonical(catalog), self.logger)
        return try await rolledBack { connection in try await Self.write(batch, to: name, on: connection, logger: logger) }
    }

    /// The batch written in the caller's transaction.
    static func write(_ batch: Batch, to name: String, on connection: PostgresConnection, logger: Logger) async throws -> WriteResult {
        guard let (catalogPK, revision) = try await Self.catalogRow(named: name, on: connection, logger: logger, locking: true) else {
            throw StoreError.unknownCatalog(name)
        }
        let editor = try await Self.edit(name, with: batch, catalogPK: catalogPK, revision: revision, on: connection, logger: logger)
        if editor.isEmpty { return .unchanged(catalog: name, revision: revision) }
        let changed = editor.changedSections
        try await Self.write(editor, changed: changed, catalog: name, on: connection, logger: logger)
        let patch = RevisionPatch(undoing: editor, changed: changed)
        try await Self.commitRevision(revision + 1, of: catalogPK, named: name, patch: patch, on: connection, logger: logger)
        return WriteResult(catalog: name, previousRevision: revision, revision: revision + 1,
                           changeset: try StoreRules.changeset(of: editor, catalog: name))
    }

    /// The batch applied by an editor reading the catalogue through `connection`, inside the
    /// caller's transaction (which holds the catalogue's lock). The editor runs again, from the
    /// start, each time it asks for something not loaded yet; what the batch names is loaded
    /// before the first run.
    static func edit(_ name: String, with batch: Batch, catalogPK: Int64, revision: Int,
                     on connection: PostgresConnection, logger: Logger) async throws -> CatalogEditor<PostgresCatalogSource> {
        var source = PostgresCatalogSource(catalogPK: catalogPK, revision: revision)
        let wanted = PostgresCatalogSource.prefetch(for: batch)
        try await source.load(sections: wanted.sections, items: wanted.items, on: connection, logger: logger)
        if wanted.order { try await source.loadOrder(on: connection, logger: logger) }
        return try await edit(name, with: batch, in: &source, on: connection, logger: logger).get()
    }

    /// Writes the rows the edit changed: sections deleted (with their items), items deleted,
    /// sections inserted or changed, the section order, then every item whose section, place or
    /// content changed, in one statement. Raises the version of every section that was there
    /// and changed or moved (combined writes check the versions of what they read). Then checks
    /// the sections it wrote.
    static func write(_ editor: CatalogEditor<PostgresCatalogSource>, changed: [String], catalog name: String,
                      on connection: PostgresConnection, logger: Logger) async throws {
        let source = editor.source
        let catalogPK = source.catalogPK
        let deletedSections = Array(editor.deleted)
        if !deletedSections.isEmpty {
            try await connection.query(deleteRows(of: "section", ids: deletedSections, catalogPK: catalogPK), logger: logger)
        }
        // Items of the sections read that no section holds any more.
        var present = Set<String>()
        for section in editor.sections.values { for item in section.items { present.insert(item.id) } }
        var gone: [String] = []
        for (_, original) in editor.originals { for item in original.section.items where !present.contains(item.id) { gone.append(item.id) } }
        if !gone.isEmpty {
            try await connection.query(deleteRows(of: "item", ids: gone, catalogPK: catalogPK), logger: logger)
        }
        // Sections: new ones inserted, changed ones updated, all at their final positions.
        let finalPositions: [String: Int] = editor.order.map { order in
            Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) })
        } ?? [:]
        for id in changed {
            let section = editor.sections[id]!
            let capacity = section.capacity.map(Int32.init)
            if editor.inserted.contains(id) {
                let position = Int32(finalPositions[id] ?? 0)
                try await connection.query("""
                    INSERT INTO section (catalog_pk, id, position, kind, title, capacity)
                    VALUES (\(catalogPK), \(id), \(position), \(section.kind.rawValue), \(section.title), \(capacity))
                    """, logger: logger)
            } else if let original = editor.originals[id]?.section,
                      original.kind != section.kind || original.title != section.title || original.capacity != section.capacity {
                try await connection.query("""
                    UPDATE section SET kind = \(section.kind.rawValue), title = \(section.title), capacity = \(capacity)
                    WHERE catalog_pk = \(catalogPK) AND id = \(id)
                    """, logger: logger)
            }
        }
        if let order = editor.order, order != editor.orderBefore {
            var rows = JSONRecords()
            for (position, id) in order.enumerated() {
                rows.append { row in
                    row.text("id", id)
                    row.integer("position", position)
                }
            }
            try await connection.query("""
                UPDATE section SET position = v.position, version = version + 1
                FROM json_to_recordset(\(rows.document)::json) AS v(id TEXT, position INTEGER)
                WHERE section.catalog_pk = \(catalogPK) AND section.id = v.id AND section.position <> v.position
                """, logger: logger)
        }
        let rows = itemRows(changed.map { id in (id, editor.sections[id]!, !editor.inserted.contains(id)) }, source: source)
        if rows.count > 0 {
            let written = try await connection.query(ItemRows.upsert(rows.document, catalogPK: catalogPK), logger: logger)
            var count = 0
            for try await _ in written { count += 1 }
            guard count == rows.count else {
                throw StoreError.database("\(rows.count - count) items of the write found no section")
            }
        }
        let kept = changed.filter { !editor.inserted.contains($0) }
        if !kept.isEmpty {
            try await connection.query("UPDATE section SET version = version + 1 WHERE catalog_pk = \(catalogPK) AND id = ANY(\(kept))",
                                       logger: logger)
        }
        try await verify(sections: changed, catalog: name, catalogPK: catalogPK, checkOrder: editor.order != editor.orderBefore,
                         on: connection, logger: logger)
    }

    /// The item rows to write for sections `changed` (id, content after the edits, whether the
    /// section's rows exist): each section's items take order keys that keep the most stored
    /// keys they have (``OrderKeys``); the rows are those whose section, key or content differ
    /// from what is stored.
    /// Each row is marked with its section's part in `parts`, when there.
    static func itemRows(_ changed: [(id: String, section: Section, exists: Bool)], source: PostgresCatalogSource,
                         parts: [String: Int32] = [:]) -> ItemRows.Writer {
        var rows = ItemRows.Writer()
        for (id, section, exists) in changed {
            let current = section.items.map { exists ? source.key(of: $0.id, inSection: id) : nil }
            let keys = OrderKeys.plan(current)
            var stored: [String: Item] = [:]
            if exists { for item in source.sections[id]?.stored.items ?? [] { stored[item.id] = item } }
            for (index, item) in section.items.enumerated() {
                if exists, current[index] == keys[index], let old = stored[item.id], old == item { continue }
                rows.append(item, section: id, key: keys[index], part: parts[id])
            }
        }
        return rows
    }

    /// Checks what no row can check alone, for the sections `ids` of the catalogue: none holds
    /// more items than its capacity, every item's kind is its section's; with `checkOrder`, the
    /// sections are at positions 0..<n. (Order keys and ids are unique by the schema.)
    static func verify(sections ids: [String]?, catalog name: String, catalogPK: Int64, checkOrder: Bool,
                       on connection: PostgresConnection, logger: Logger) async throws {
        let rows = try await connection.query(sectionsBreakingRules(ids, catalogPK: catalogPK), logger: logger)
        for try await (id, count, capacity, mismatched) in rows.decode((String, Int64, Int32?, Int64).self) {
            if mismatched > 0 {
                throw StoreError.database("an item of section \(id) of catalogue \(name) is not of the section's kind")
            }
            throw StoreError.overCapacity(catalog: name, section: id, count: Int(count), capacity: Int(capacity ?? 0))
        }
        if checkOrder {
            var binds = PostgresBindings()
            binds.append(catalogPK)
            let order = try await connection.query(PostgresQuery(unsafeSQL: StoreSQL.sectionOrderHolds(catalogPK: "$1"), binds: binds),
                                                   logger: logger)
            for try await ok in order.decode(Bool.self) where !ok {
                throw StoreError.positionsOutOfOrder(catalog: name, section: "(section order)")
            }
        }
    }

    /// The first of sections `ids` (every section, when nil) of catalogue `catalogPK` that holds
    /// more items than its capacity or an item not of its kind: id, items, capacity, items of
    /// another kind.
    static func sectionsBreakingRules(_ ids: [String]?, catalogPK: Int64) -> PostgresQuery {
        // Each section's items counted through its own index (a lateral aggregate is not flattened).
        let mismatch = "count(*) FILTER (WHERE s.kind <> \(StoreSQL.sectionKind(ofItemKind: "i.kind")))"
        var binds = PostgresBindings()
        binds.append(catalogPK)
        let sections: String
        if let ids {
            binds.append(ids)
            sections = KeyLookup.primaryKey(of: "s", in: [KeyLookup.rows("pk", of: "section", catalogPK: "$1", where: "id", in: "$2", keyType: "text")])
        } else {
            sections = "s.catalog_pk = $1"
        }
        return PostgresQuery(unsafeSQL: """
            SELECT s.id, n.count, s.capacity, n.mismatched FROM section s
            CROSS JOIN LATERAL (SELECT count(*) AS count, \(mismatch) AS mismatched FROM item i WHERE i.section_pk = s.pk) AS n
            WHERE \(sections) AND (n.count > coalesce(s.capacity, 2147483647) OR n.mismatched > 0)
            LIMIT 1
            """, binds: binds)
    }

    /// Deletes the rows of `table` (`section` or `item`) of catalogue `catalogPK` with the ids `ids`.
    static func deleteRows(of table: String, ids: [String], catalogPK: Int64) -> PostgresQuery {
        var binds = PostgresBindings()
        binds.append(catalogPK)
        binds.append(ids)
        let lookup = KeyLookup.rows("pk", of: table, catalogPK: "$1", where: "id", in: "$2", keyType: "text")
        return PostgresQuery(unsafeSQL: "DELETE FROM \(table) WHERE \(KeyLookup.primaryKey(of: table, in: [lookup]))", binds: binds)
    }

    /// Raises the catalogue's revision to `revision` (notifying listeners, on commit), as a writer
    /// that raises section versions (which migration 0004's guard asks of every write), and
    /// journals how to undo the write; every
    /// `StoreRules.journalPruningInterval` revisions, forgets those past what the database
    /// keeps.
    static func commitRevision(_ revision: Int, of catalogPK: Int64, named name: String, patch: RevisionPatch,
                               on connection: PostgresConnection, logger: Logger) async throws {
        let text = try patch.encoded()
        try await connection.query("""
            UPDATE catalog SET revision = \(Int64(revision))
            WHERE pk = \(catalogPK) AND set_config('catalogkit.section_versions', 'on', true) = 'on'
            RETURNING pg_notify(\(channel), \(payload(name: name, revision: revision)))
            """, logger: logger)
        try await connection.query("INSERT INTO journal (catalog_pk, revision, patch) VALUES (\(catalogPK), \(Int64(revision)), \(text))",
                                   logger: logger)
        if StoreRules.prunesJournal(afterWriting: revision) {
            try await connection.query("""
                DELETE FROM journal WHERE catalog_pk = \(catalogPK) AND revision <= \(Int64(revision)) - coalesce(
                    (SELECT value FROM setting WHERE name = 'journal_revisions'), \(Int64(StoreRules.defaultJournalRevisions)))
                """, logger: logger)
        }
    }
}
