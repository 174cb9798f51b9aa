import CatalogDiff
import CatalogModel
import CatalogStoreCore
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
              let move = try placeQuickly(id, to: targetID, at: requested, policy: policy, catalog: catalog, in: db),
              batch.baseRevision.map({ $0 == move.revision }) ?? true,
              try write(move, in: db)
        else { return nil }
        // The revision was read in this transaction, so it is written, not asked for (RETURNING
        // costs SQLite a temporary table on every move).
        let newRevision = move.revision + 1
        try RawStatement(db, "UPDATE catalog SET revision = ? WHERE pk = ?")
            .execute(.integer(Int64(newRevision)), .integer(move.catalogPK))
        try journal(RevisionPatch(itemMoves: [move.undo]), catalogPK: move.catalogPK, revision: newRevision, in: db)
        var changeset = if move.source.pk == move.target.pk, abs(move.to - move.from) == 1 {
            // Two neighbours trading places: moving either one is a fewest-moves answer, and the
            // diff — which the general path runs on the shelf — decides which. Ask it.
            try movesChangeset([move], counts: [move.target.pk: move.targetCount])
        } else {
            Changeset(stages: [Stage(items: ItemChanges(moved: [
                Move(from: ItemPath(section: move.source.position, item: move.from), to: ItemPath(section: move.target.position, item: move.to)),
            ]))])
        }
        changeset.fromRevision = move.revision
        changeset.toRevision = newRevision
        return WriteResult(catalog: catalog, previousRevision: move.revision, revision: newRevision, changeset: changeset)
    }

    /// A book's move as the quick path makes it: where it was and where it goes, its new key.
    struct QuickMove {
        var catalogPK: Int64
        var revision: Int
        var item: (pk: Int64, id: String)
        var source: (pk: Int64, id: String, position: Int)
        var target: (pk: Int64, id: String, position: Int)
        /// How many books the target shelf held before the move.
        var targetCount: Int
        /// The book's index in its shelf before, and in the target shelf after.
        var from: Int
        var to: Int
        var key: Int64

        /// The journal's entry that undoes it.
        var undo: RevisionPatch.ItemMove { .init(item: item.id, section: source.id, index: from) }
    }

    /// The move of book `id` to `targetID` checked by the rules of a move (``MoveDecision``) and
    /// given its key, reading the rows as they stand in this transaction; nil for anything but a
    /// plain move within a shelf or into one with room — a swap, a displacement, an error, a
    /// book that stays in its place, no key left between the new neighbours — which the
    /// general path decides (and names the error of).
    private static func placeQuickly(_ id: String, to targetID: String, at requested: Int?, policy: MovePolicy,
                                     catalog: String, in db: Database) throws -> QuickMove? {
        // The catalogue, the book with its shelf and its index there, and the target shelf with
        // its count, in one lookup (no row: one of them is unknown, and the general path names
        // it). Positions are order keys (``OrderKeys``): the book's index is the number of keys
        // before its own.
        guard let row = try RawStatement(db, """
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
        let (item, target) = (row.item, row.target)
        let within = target.pk == item.sourcePK
        guard let kind = ItemKind(rawValue: item.kind), let sectionKind = SectionKind(rawValue: target.kind),
              let decision = try? MoveDecision.decide(item: id, kind: kind, to: targetID, of: sectionKind, count: target.count,
                                                      capacity: target.capacity, sameSection: within, at: requested, policy: policy)
        else { return nil }
        // The book takes a key between those of its new neighbours: the books at `to` - 1 and
        // `to` once it has left its place.
        let to: Int
        switch decision {
        case .within(let index) where index != item.index: to = index
        case .insert(let index): to = index
        default: return nil
        }
        let others = within ? target.count - 1 : target.count
        var neighbours: [Int64] = []
        try RawStatement(db, "SELECT position FROM item WHERE section_pk = ? AND pk <> ? ORDER BY position LIMIT 2 OFFSET ?")
            .forEach(.integer(target.pk), .integer(item.pk), .integer(Int64(max(to - 1, 0)))) { row in
                neighbours.append(row.int64(0))
                return true
            }
        let lower = to > 0 ? neighbours.first : nil
        let upper = to < others ? neighbours[to > 0 ? 1 : 0] : nil
        // No key left between the neighbours: the general path gives the shelf fresh keys.
        guard let key = OrderKeys.keys(count: 1, after: lower, before: upper)?.first else { return nil }
        return QuickMove(catalogPK: row.catalogPK, revision: row.revision, item: (item.pk, id),
                         source: (item.sourcePK, item.sourceID, item.sourcePosition), target: (target.pk, targetID, target.position),
                         targetCount: target.count, from: item.index, to: to, key: key)
    }

    /// Writes the book's row at its new place. Always true (for use in a condition).
    ///
    /// What every write checks before its commit — no two keys alike in a section, no more
    /// books than its capacity — holds here by construction: the source shelf only lost a book,
    /// the target's room was checked, and the new key lies strictly between two keys that are
    /// adjacent in the shelf's order (read in this transaction), so no row holds it. Debug
    /// builds and the tests still check it, as an invariant check; release builds skip it
    /// (about 5% of a move's instructions in the store).
    private static func write(_ move: QuickMove, in db: Database) throws -> Bool {
        try RawStatement(db, "UPDATE item SET section_pk = ?, position = ? WHERE pk = ?")
            .execute(.integer(move.target.pk), .integer(move.key), .integer(move.item.pk))
        #if DEBUG
        try verifyKey(move.key, ofSection: move.target.pk, id: move.target.id, catalog: "(a quick move)", in: db)
        #endif
        return true
    }

    /// A batch of several moves, each a plain move within a shelf or into one with room: each
    /// placed as ``quickMove(_:catalog:in:)`` places one, in order (each sees the ones before
    /// it), then one revision, one journal entry (the moves to undo, last to first) and the
    /// changeset of the shelves they touched, made from the moves themselves (no shelf is read
    /// whole, no book's content at all). Returns nil, having written nothing (a savepoint is rolled back), when any move
    /// is not one the quick path takes: the general path then decides the whole batch.
    static func quickMoves(_ batch: Batch, catalog: String, in db: Database) throws -> WriteResult? {
        guard batch.operations.count > 1, batch.operations.allSatisfy({ if case .moveItem = $0 { true } else { false } }) else {
            return nil
        }
        var moves: [QuickMove] = []
        moves.reserveCapacity(batch.operations.count)
        // How many books each shelf held as the batch found it (for the changeset): a target's
        // count comes with its move's lookup; a shelf first seen as a source is counted before
        // its book leaves.
        var counts: [Int64: Int] = [:]
        let count = try RawStatement(db, "SELECT count(*) FROM item WHERE section_pk = ?")
        try db.inSavepoint {
            for operation in batch.operations {
                guard case .moveItem(let id, let targetID, let requested, let policy) = operation,
                      let move = try placeQuickly(id, to: targetID, at: requested, policy: policy, catalog: catalog, in: db),
                      batch.baseRevision.map({ $0 == move.revision }) ?? true
                else {
                    moves = []
                    return .rollback
                }
                if counts[move.target.pk] == nil { counts[move.target.pk] = move.targetCount }
                if counts[move.source.pk] == nil {
                    counts[move.source.pk] = try count.first(.integer(move.source.pk), read: { $0.int(0) })
                }
                _ = try write(move, in: db)
                moves.append(move)
            }
            return .commit
        }
        guard let first = moves.first else { return nil }
        let newRevision = first.revision + 1
        try RawStatement(db, "UPDATE catalog SET revision = ? WHERE pk = ?")
            .execute(.integer(Int64(newRevision)), .integer(first.catalogPK))
        try journal(RevisionPatch(itemMoves: moves.map(\.undo)), catalogPK: first.catalogPK, revision: newRevision, in: db)
        var changeset = try movesChangeset(moves, counts: counts)
        changeset.fromRevision = first.revision
        changeset.toRevision = newRevision
        return WriteResult(catalog: catalog, previousRevision: first.revision, revision: newRevision, changeset: changeset)
    }

    /// The staged changeset of `moves`, from the moves alone, without reading a shelf: each
    /// shelf they touch is a run of placeholders, one per book it held before them (`counts`);
    /// the moves are replayed on those runs, each taking the placeholder at its `from` to its
    /// `to`; and the runs before and after are diffed as the general path diffs the sections it
    /// read. A book that stays put keeps its placeholder, so its order relative to the others is
    /// what the rows say; no id and no content is needed.
    private static func movesChangeset(_ moves: [QuickMove], counts: [Int64: Int]) throws -> Changeset {
        // The shelves in catalogue order (the order the general path reads them in).
        var shelves: [Int64: Int] = [:]  // pk → catalogue position
        for move in moves {
            shelves[move.source.pk] = move.source.position
            shelves[move.target.pk] = move.target.position
        }
        let order = shelves.sorted { $0.value < $1.value }
        var index: [Int64: Int] = [:]
        var before: [[Int]] = []
        var placeholders = 0
        for (pk, _) in order {
            guard let count = counts[pk] else { throw inconsistent }
            index[pk] = before.count
            before.append(Array(placeholders..<placeholders + count))
            placeholders += count
        }
        var after = before
        var book: [Int: String] = [:]  // placeholder → the book it turned out to be
        for move in moves {
            guard let s = index[move.source.pk], let t = index[move.target.pk], after[s].indices.contains(move.from) else {
                throw inconsistent
            }
            let slot = after[s].remove(at: move.from)
            guard book.updateValue(move.item.id, forKey: slot).map({ $0 == move.item.id }) ?? true, move.to <= after[t].count else {
                throw inconsistent
            }
            after[t].insert(slot, at: move.to)
        }
        let sections = Array(before.indices)
        return try StagedDiff.changeset(from: SnapshotShape(sections: sections, items: before),
                                        to: SnapshotShape(sections: sections, items: after))
            .placingSections(at: order.map(\.value))
    }

    private static var inconsistent: StoreError {
        .database("the moves of a batch do not replay on the shelves they were read from")
    }
}
