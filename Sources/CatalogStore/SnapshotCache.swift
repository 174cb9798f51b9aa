import CatalogDiff
import CatalogModel
import Foundation

/// The catalogues reads loaded whole lately, each kept at the revision it was read at, so that a
/// read of the same revision — the change feed of every client that asks while no write lands,
/// a snapshot after a response cache forgot it — does not read and rebuild every row again.
///
/// A catalogue's rows at one revision never change: every write raises the revision in the
/// transaction that changes them. So an entry is good exactly while the catalogue's row (read in
/// the caller's transaction) still has its key and revision. Loading a 1,000-item catalogue was
/// a quarter of an uncached change feed's time. The memory is that of the catalogues themselves
/// (at most ``limit`` of them, the latest revision of each), shared with the values handed out.
package final class SnapshotCache: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [Int64: Catalog] = [:]
    /// Bounded: a store with many catalogues keeps the latest few.
    static let limit = 16

    package init() {}

    /// The catalogue with row key `pk`, named `name`, at `revision`, if it is kept.
    package func catalog(pk: Int64, named name: String, revision: Int) -> Catalog? {
        lock.withLock {
            guard let catalog = entries[pk], catalog.revision == revision, catalog.name == name else { return nil }
            return catalog
        }
    }

    /// The latest kept revision of the catalogue named `name`, with its row key.
    package func latest(named name: String) -> (pk: Int64, catalog: Catalog)? {
        lock.withLock {
            entries.first { $0.value.name == name }.map { ($0.key, $0.value) }
        }
    }

    /// Keeps `catalog` (whose row key is `pk`) unless a later revision of it is kept already.
    package func keep(_ catalog: Catalog, pk: Int64) {
        lock.withLock {
            if let kept = entries[pk], kept.revision > catalog.revision { return }
            if entries[pk] == nil, entries.count >= Self.limit { entries.removeAll(keepingCapacity: true) }
            entries[pk] = catalog
        }
    }

    /// Forgets the catalogue with row key `pk` (deleted: the key may be given to another).
    package func forget(pk: Int64, named name: String) {
        lock.withLock {
            if entries[pk]?.name == name { entries[pk] = nil }
        }
    }

    /// Brings the kept catalogue named `name` from `revision` to `revision + 1` by a write whose
    /// changeset only moved items, in one stage (the commonest writes: a book dragged to another
    /// place, two swapped, a shelf's overflow displaced along), and returns it; nil, keeping
    /// nothing new, for any other write or when that revision is not kept. Called after the
    /// write committed.
    package func advance(named name: String, from revision: Int, by changeset: Changeset) -> Catalog? {
        lock.withLock {
            guard let (pk, kept) = entries.first(where: { $0.value.name == name && $0.value.revision == revision }),
                  changeset.stages.count == 1, let stage = changeset.stages.first, stage.sections.isEmpty,
                  stage.items.deleted.isEmpty, stage.items.inserted.isEmpty, stage.items.reloaded.isEmpty,
                  !stage.items.moved.isEmpty,
                  var catalog = Self.applying(stage.items.moved, to: kept)
            else { return nil }
            catalog.revision = revision + 1
            entries[pk] = catalog
            return catalog
        }
    }

    /// `catalog` after one stage of item moves, as a collection view applies them: every `from`
    /// counts in the catalogue before, every `to` in the one after, the items not moved keep
    /// their order. Nil when the moves do not fit the catalogue (the write's changeset was not
    /// computed from this revision).
    static func applying(_ moves: [Move<ItemPath>], to catalog: Catalog) -> Catalog? {
        var catalog = catalog
        let sections = catalog.sections.indices
        guard moves.allSatisfy({ sections.contains($0.from.section) && sections.contains($0.to.section) }),
              Set(moves.map(\.from)).count == moves.count, Set(moves.map(\.to)).count == moves.count else { return nil }
        var moved: [ItemPath: Item] = [:]
        for from in moves.map(\.from).sorted(by: >) {
            guard catalog.sections[from.section].items.indices.contains(from.item) else { return nil }
            moved[from] = catalog.sections[from.section].items.remove(at: from.item)
        }
        for move in moves.sorted(by: { $0.to < $1.to }) {
            guard move.to.item <= catalog.sections[move.to.section].items.count, let item = moved[move.from] else { return nil }
            catalog.sections[move.to.section].items.insert(item, at: move.to.item)
        }
        return catalog
    }
}
