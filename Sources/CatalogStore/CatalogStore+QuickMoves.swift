import CatalogDiff
import CatalogModel
import GRDB

extension CatalogStore {
    /// The commonest writes — one book dragged to another place on its shelf, or to another shelf
    /// that has room — straight in SQL: a handful of indexed lookups, one UPDATE of the book's row
    /// (positions are order keys, so nothing shifts), the checks, a one-line journal entry and a
    /// one-move changeset, instead of reading the shelves into an editor.
    ///
    /// Returns nil, having written nothing, for anything else or anything unusual (another
    /// operation, a full shelf, a swap, a book that stays in its place, a stale revision, an
    /// unknown id, a bad index or kind, no key left between the new neighbours):
    /// `apply(_:to:)` then takes the general path in the same transaction, which applies the
    /// same rules and reports errors.
    /// The result, the database (keys included) and the journal are the same as the general
    /// path's (tested move by move).
    static func quickMove(_ batch: Batch, catalog: String, in db: Database) throws -> WriteResult? {
        guard batch.operations.count == 1,
              case .moveItem(let id, let targetID, let requested, let policy) = batch.operations[0],
              // The catalogue, the book with its shelf and its index there, and the target shelf
              // with its count, in one lookup (no row: one of them is unknown, and the general
              // path names it). Positions are order keys (``OrderKeys``): the book's index is the
              // number of keys before its own.
              let row = try RawStatement(db, """
                  SELECT c.pk, c.revision, i.pk, i.kind, s.pk, s.id, s.position,
                         t.pk, t.position, t.kind, t.capacity, (SELECT count(*) FROM item WHERE section_pk = t.pk),
                         (SELECT count(*) FROM item WHERE section_pk = s.pk AND position < i.position)
                  FROM catalog c
                  JOIN item i ON i.catalog_pk = c.pk AND i.id = ?
                  JOIN section s ON s.pk = i.section_pk
                  JOIN section t ON t.catalog_pk = c.pk AND t.id = ?
                  WHERE c.name = ?
                  """).first(.text(id), .text(targetID), .text(Identifier.canonical(catalog)), read: { row in
                      (catalogPK: row.int64(0), revision: row.int(1),
                       item: (pk: row.int64(2), kind: row.text(3) ?? "", sourcePK: row.int64(4), sourceID: row.text(5) ?? "",
                              sourcePosition: row.int(6), index: row.int(12)),
                       target: (pk: row.int64(7), position: row.int(8), kind: row.text(9) ?? "",
                                capacity: row.isNull(10) ? nil : row.int(10), count: row.int(11)))
                  })
        else { return nil }
        let (catalogPK, revision, item, target) = (row.catalogPK, row.revision, row.item, row.target)
        if let base = batch.baseRevision, base != revision { return nil }
        let (itemPK, itemKind, from) = (item.pk, item.kind, item.index)
        let (sourcePK, sourceID, sourcePosition) = (item.sourcePK, item.sourceID, item.sourcePosition)
        let (targetPK, targetPosition, targetKind) = (target.pk, target.position, target.kind)
        let (capacity, count) = (target.capacity, target.count)
        let within = targetPK == sourcePK
        // The rules of a move (``MoveDecision``); anything but a plain move within the shelf or
        // into one with room — a swap, a displacement, an error — is left to the general path.
        guard let kind = ItemKind(rawValue: itemKind), let sectionKind = SectionKind(rawValue: targetKind),
              let decision = try? MoveDecision.decide(item: id, kind: kind, to: targetID, of: sectionKind, count: count,
                                                      capacity: capacity, sameSection: within, at: requested, policy: policy)
        else { return nil }
        // The book takes a key between those of its new neighbours: the books at `to` - 1 and
        // `to` once it has left its place. A book that stays in its place is left to the general
        // path too.
        let to: Int
        switch decision {
        case .within(let index) where index != from: to = index
        case .insert(let index): to = index
        default: return nil
        }
        let others = within ? count - 1 : count
        var neighbours: [Int64] = []
        try RawStatement(db, "SELECT position FROM item WHERE section_pk = ? AND pk <> ? ORDER BY position LIMIT 2 OFFSET ?")
            .forEach(.integer(targetPK), .integer(itemPK), .integer(Int64(max(to - 1, 0)))) { row in
                neighbours.append(row.int64(0))
                return true
            }
        let lower = to > 0 ? neighbours.first : nil
        let upper = to < others ? neighbours[to > 0 ? 1 : 0] : nil
        // No key left between the neighbours: the general path gives the shelf fresh keys.
        guard let key = OrderKeys.keys(count: 1, after: lower, before: upper)?.first else { return nil }
        try RawStatement(db, "UPDATE item SET section_pk = ?, position = ? WHERE pk = ?")
            .execute(.integer(targetPK), .integer(key), .integer(itemPK))
        // The revision was read in this transaction, so it is written, not asked for (RETURNING
        // costs SQLite a temporary table on every move).
        let newRevision = revision + 1
        try RawStatement(db, "UPDATE catalog SET revision = ? WHERE pk = ?")
            .execute(.integer(Int64(newRevision)), .integer(catalogPK))
        // What every write checks before its commit — no two keys alike in a section, no more
        // books than its capacity — holds here by construction: the source shelf only lost a
        // book, the target's room was checked above, and the new key lies strictly between two
        // keys that are adjacent in the shelf's order (read in this transaction), so no row
        // holds it. Debug builds and the tests still check it, as an invariant check; release
        // builds skip it (about 5% of a move's instructions in the store).
        #if DEBUG
        try verifyKey(key, ofSection: targetPK, id: targetID, catalog: catalog, in: db)
        #endif
        try journal(RevisionPatch(itemMoves: [.init(item: id, section: sourceID, index: from)]),
                    catalogPK: catalogPK, revision: newRevision, in: db)
        var changeset = Changeset(stages: [Stage(items: ItemChanges(moved: [
            Move(from: ItemPath(section: sourcePosition, item: from), to: ItemPath(section: targetPosition, item: to)),
        ]))])
        if within, abs(to - from) == 1 {
            // Two neighbours trading places: moving either one is a fewest-moves answer, and the
            // diff — which the general path runs on the shelf — decides which. Ask it.
            changeset = try shelfChangeset(section: targetPK, at: targetPosition, movedFrom: from, to: to, in: db)
        }
        changeset.fromRevision = revision
        changeset.toRevision = newRevision
        return WriteResult(catalog: catalog, previousRevision: revision, revision: newRevision, changeset: changeset)
    }

    /// The diff of a shelf whose book at `from` is now at `to` (the rows already say the new
    /// order), with its items at the shelf's place `position` in the catalogue.
    private static func shelfChangeset(section pk: Int64, at position: Int, movedFrom from: Int, to: Int,
                                       in db: Database) throws -> Changeset {
        var after: [String] = []
        try RawStatement(db, "SELECT id FROM item WHERE section_pk = ? ORDER BY position").forEach(.integer(pk)) { row in
            after.append(row.text(0) ?? "")
            return true
        }
        var before = after
        before.insert(before.remove(at: to), at: from)
        var changeset = try StagedDiff.changeset(from: SnapshotShape(sections: [0], items: [before]),
                                                 to: SnapshotShape(sections: [0], items: [after]))
        for s in changeset.stages.indices {
            changeset.stages[s].items.moved = changeset.stages[s].items.moved.map {
                Move(from: ItemPath(section: position, item: $0.from.item), to: ItemPath(section: position, item: $0.to.item))
            }
        }
        return changeset
    }
}
