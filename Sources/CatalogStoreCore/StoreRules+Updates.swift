import CatalogDiff
import CatalogModel

extension StoreRules {
    /// The update from `old` (a revision the journal rebuilt) to `current`: their changeset and
    /// a catalogue per stage, or a reset when the changeset has more than `resetThreshold`
    /// operations. What every store's observers are sent.
    package static func update(from old: Catalog, to current: Catalog, restoredContent: Bool,
                               resetThreshold: Int) throws(StoreError) -> CatalogUpdate {
        let changeset = try changeset(from: old, to: current, restoredContent: restoredContent)
        if changeset.operationCount > resetThreshold { return .reset(current) }
        var update = CatalogUpdate(revision: current.revision, catalog: current, changeset: changeset,
                                   stages: changeset.stagedCatalogs(from: old, to: current))
        update.previous = old
        return update
    }

    /// After a committed write, before its observers wake: a move brings the kept snapshot to
    /// the new revision, and the update they need is made from the write's own changeset (no
    /// diff, no reload) and kept, once for all of them.
    package static func keepAdvanced(by result: WriteResult, snapshots: SnapshotCache, updates: UpdateCache) {
        guard result.revision == result.previousRevision + 1,
              let catalog = snapshots.advance(named: result.catalog, from: result.previousRevision, by: result.changeset)
        else { return }
        updates.keep(CatalogUpdate(revision: result.revision, catalog: catalog, changeset: result.changeset, stages: [catalog]),
                     for: UpdateCache.Key(name: result.catalog, from: result.previousRevision, to: result.revision))
    }
}
