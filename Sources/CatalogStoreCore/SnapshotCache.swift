import CatalogConcurrency
import CatalogDiff
import CatalogModel

/// The catalogues reads loaded whole lately, each kept at the revision it was read at, so that a
/// read of the same revision — the change feed of every client that asks while no write lands,
/// a snapshot after a response cache forgot it — does not read and rebuild every row again.
///
/// A catalogue's rows at one revision never change: every write raises the revision in the
/// transaction that changes them. So an entry is good exactly while the catalogue's row (read in
/// the caller's transaction) still has its key and revision. Loading a 1,000-item catalogue was
/// a quarter of an uncached change feed's time. The memory is that of the catalogues themselves
/// (at most ``limit`` of them, the latest revision of each), shared with the values handed out.
package final class SnapshotCache: Sendable {
    /// The kept catalogues by row key.
    private let entries = Locked<[Int64: Catalog]>([:])
    /// Bounded: a store with many catalogues keeps the latest few.
    static let limit = 16

    package init() {}

    /// The catalogue with row key `pk`, named `name`, at `revision`, if it is kept.
    package func catalog(pk: Int64, named name: String, revision: Int) -> Catalog? {
        entries.withLock { entries in
            guard let catalog = entries[pk], catalog.revision == revision, catalog.name == name else { return nil }
            return catalog
        }
    }

    /// The latest kept revision of the catalogue named `name`, with its row key.
    package func latest(named name: String) -> (pk: Int64, catalog: Catalog)? {
        entries.withLock { entries in
            entries.first { $0.value.name == name }.map { ($0.key, $0.value) }
        }
    }

    /// Keeps `catalog` (whose row key is `pk`) unless a later revision of it is kept already.
    package func keep(_ catalog: Catalog, pk: Int64) {
        entries.withLock { entries in
            if let kept = entries[pk], kept.revision > catalog.revision { return }
            if entries[pk] == nil, entries.count >= Self.limit { entries.removeAll(keepingCapacity: true) }
            entries[pk] = catalog
        }
    }

    /// Forgets the catalogue with row key `pk` (deleted: the key may be given to another).
    package func forget(pk: Int64, named name: String) {
        entries.withLock { entries in
            if entries[pk]?.name == name { entries[pk] = nil }
        }
    }

    /// Brings the kept catalogue named `name` from `revision` to `revision + 1` by a write whose
    /// changeset only moved items, in one stage (the commonest writes: a book dragged to another
    /// place, two swapped, a shelf's overflow displaced along), and returns it; nil, keeping
    /// nothing new, for any other write or when that revision is not kept. Called after the
    /// write committed.
    package func advance(named name: String, from revision: Int, by changeset: Changeset) -> Catalog? {
        entries.withLock { entries in
            guard let (pk, kept) = entries.first(where: { $0.value.name == name && $0.value.revision == revision }),
                  changeset.stages.count == 1, let stage = changeset.stages.first, stage.sections.isEmpty,
                  stage.items.deleted.isEmpty, stage.items.inserted.isEmpty, stage.items.reloaded.isEmpty,
                  !stage.items.moved.isEmpty
            else { return nil }
            var catalog = kept
            // Moves that do not fit: the write's changeset was not computed from this revision.
            guard stage.applyItemMoves(to: &catalog.sections, \.items) else { return nil }
            catalog.revision = revision + 1
            entries[pk] = catalog
            return catalog
        }
    }
}
