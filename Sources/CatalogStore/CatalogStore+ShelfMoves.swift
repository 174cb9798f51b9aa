import CatalogDiff
import CatalogModel
import GRDB

extension CatalogStore {
    /// The commonest write — one book dragged to another shelf that has room — straight in SQL:
    /// a handful of indexed lookups, one UPDATE of the book's row (positions are order keys, so
    /// nothing shifts), the checks, a one-line journal entry and a one-move changeset, instead of
    /// reading both shelves into an editor.
    ///
    /// Returns nil, having written nothing, for anything else or anything unusual (another
    /// operation, a move within a shelf, a full shelf, a swap, a stale revision, an unknown id, a
    /// bad index or kind, no key left between the new neighbours): ``apply(_:to:)`` then takes
    /// the general path in the same transaction, which applies the same rules and reports errors.
    /// The result, the database (keys included) and the journal are the same as the general
    /// path's (tested move by move).
    static func moveToShelfWithRoom(_ batch: Batch, catalog: String, in db: Database) throws -> WriteResult? {
        guard batch.operations.count == 1,
              case .moveItem(let id, let targetID, let requested, let policy) = batch.operations[0],
              let (catalogPK, revision) = try RawStatement(db, "SELECT pk, revision FROM catalog WHERE name = ?")
                  .first(.text(catalog), read: { ($0.int64(0), $0.int(1)) })
        else { return nil }
        if let base = batch.baseRevision, base != revision { return nil }
        guard let item = try RawStatement(db, """
                  SELECT i.pk, i.position, i.kind, s.pk, s.id, s.position
                  FROM item i JOIN section s ON s.pk = i.section_pk WHERE i.catalog_pk = ? AND i.id = ?
                  """).first(.integer(catalogPK), .text(id), read: {
                      (pk: $0.int64(0), key: $0.int64(1), kind: $0.text(2) ?? "", sourcePK: $0.int64(3), sourceID: $0.text(4) ?? "", sourcePosition: $0.int(5))
                  }),
              let target = try RawStatement(db, """
                  SELECT pk, position, kind, capacity, (SELECT count(*) FROM item WHERE section_pk = section.pk)
                  FROM section WHERE catalog_pk = ? AND id = ?
                  """).first(.integer(catalogPK), .text(targetID), read: {
                      (pk: $0.int64(0), position: $0.int(1), kind: $0.text(2) ?? "", capacity: $0.isNull(3) ? nil : $0.int(3), count: $0.int(4))
                  })
        else { return nil }
        let (itemPK, itemKey, itemKind) = (item.pk, item.key, item.kind)
        let (sourcePK, sourceID, sourcePosition) = (item.sourcePK, item.sourceID, item.sourcePosition)
        let (targetPK, targetPosition, targetKind) = (target.pk, target.position, target.kind)
        let (capacity, count) = (target.capacity, target.count)
        let index = requested ?? count
        guard targetPK != sourcePK,
              SectionKind(rawValue: targetKind)?.itemKind.rawValue == itemKind,
              index >= 0, index <= count,
              capacity.map({ count < $0 }) ?? true,
              !(policy == .swap && index < count)
        else { return nil }

        // Positions are order keys (``OrderKeys``): the book's index is the number of keys before
        // its own, and it takes a key between those of its new neighbours, at index - 1 and index.
        let from = try RawStatement(db, "SELECT count(*) FROM item WHERE section_pk = ? AND position < ?")
            .first(.integer(sourcePK), .integer(itemKey), read: { $0.int(0) })!
        var neighbours: [Int64] = []
        try RawStatement(db, "SELECT position FROM item WHERE section_pk = ? ORDER BY position LIMIT 2 OFFSET ?")
            .forEach(.integer(targetPK), .integer(Int64(max(index - 1, 0)))) { row in
                neighbours.append(row.int64(0))
                return true
            }
        let lower = index > 0 ? neighbours.first : nil
        let upper = index < count ? neighbours[index > 0 ? 1 : 0] : nil
        // No key left between the neighbours: the general path gives the shelf fresh keys.
        guard let key = OrderKeys.keys(count: 1, after: lower, before: upper)?.first else { return nil }
        try RawStatement(db, "UPDATE item SET section_pk = ?, position = ? WHERE pk = ?")
            .execute(.integer(targetPK), .integer(key), .integer(itemPK))
        let newRevision = try RawStatement(db, "UPDATE catalog SET revision = revision + 1 WHERE pk = ? RETURNING revision")
            .first(.integer(catalogPK), read: { $0.int(0) })!
        try verifyItemPositions(ofSection: sourcePK, id: sourceID, capacity: nil, catalog: catalog, in: db)
        try verifyItemPositions(ofSection: targetPK, id: targetID, capacity: capacity, catalog: catalog, in: db)
        try journal(RevisionPatch(itemMoves: [.init(item: id, section: sourceID, index: from)]),
                    catalogPK: catalogPK, revision: newRevision, in: db)
        let move = Move(from: ItemPath(section: sourcePosition, item: from), to: ItemPath(section: targetPosition, item: index))
        return WriteResult(catalog: catalog, previousRevision: revision, revision: newRevision,
                           changeset: Changeset(stages: [Stage(items: ItemChanges(moved: [move]))],
                                                fromRevision: revision, toRevision: newRevision))
    }
}
