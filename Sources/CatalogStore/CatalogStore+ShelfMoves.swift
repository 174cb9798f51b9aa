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
              let header = try Row.fetchOne(db.cachedStatement(sql: "SELECT pk, revision FROM catalog WHERE name = ?"),
                                            arguments: [catalog])
        else { return nil }
        let catalogPK: Int64 = header[0]
        let revision: Int = header[1]
        if let base = batch.baseRevision, base != revision { return nil }
        guard let item = try Row.fetchOne(db.cachedStatement(sql: """
                  SELECT i.pk, i.position, i.kind, s.pk, s.id, s.position
                  FROM item i JOIN section s ON s.pk = i.section_pk WHERE i.catalog_pk = ? AND i.id = ?
                  """), arguments: [catalogPK, id]),
              let target = try Row.fetchOne(db.cachedStatement(sql: """
                  SELECT pk, position, kind, capacity, (SELECT count(*) FROM item WHERE section_pk = section.pk)
                  FROM section WHERE catalog_pk = ? AND id = ?
                  """), arguments: [catalogPK, targetID])
        else { return nil }
        let (itemPK, itemKey, itemKind): (Int64, Int64, String) = (item[0], item[1], item[2])
        let (sourcePK, sourceID, sourcePosition): (Int64, String, Int) = (item[3], item[4], item[5])
        let (targetPK, targetPosition, targetKind): (Int64, Int, String) = (target[0], target[1], target[2])
        let (capacity, count): (Int?, Int) = (target[3], target[4])
        let index = requested ?? count
        guard targetPK != sourcePK,
              SectionKind(rawValue: targetKind)?.itemKind.rawValue == itemKind,
              index >= 0, index <= count,
              capacity.map({ count < $0 }) ?? true,
              !(policy == .swap && index < count)
        else { return nil }

        // Positions are order keys (``OrderKeys``): the book's index is the number of keys before
        // its own, and it takes a key between those of its new neighbours, at index - 1 and index.
        let from = try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM item WHERE section_pk = ? AND position < ?"),
                                    arguments: [sourcePK, itemKey])!
        let neighbours = try Int64.fetchAll(db.cachedStatement(sql: "SELECT position FROM item WHERE section_pk = ? ORDER BY position LIMIT 2 OFFSET ?"),
                                            arguments: [targetPK, max(index - 1, 0)])
        let lower = index > 0 ? neighbours.first : nil
        let upper = index < count ? neighbours[index > 0 ? 1 : 0] : nil
        // No key left between the neighbours: the general path gives the shelf fresh keys.
        guard let key = OrderKeys.keys(count: 1, after: lower, before: upper)?.first else { return nil }
        try db.cachedStatement(sql: "UPDATE item SET section_pk = ?, position = ? WHERE pk = ?")
            .execute(arguments: [targetPK, key, itemPK])
        let newRevision = try Int.fetchOne(db.cachedStatement(sql: "UPDATE catalog SET revision = revision + 1 WHERE pk = ? RETURNING revision"),
                                           arguments: [catalogPK])!
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
