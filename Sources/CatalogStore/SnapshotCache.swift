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
final class SnapshotCache: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [Int64: Catalog] = [:]
    /// Bounded: a store with many catalogues keeps the latest few.
    static let limit = 16

    /// The catalogue with row key `pk`, named `name`, at `revision`, if it is kept.
    func catalog(pk: Int64, named name: String, revision: Int) -> Catalog? {
        lock.withLock {
            guard let catalog = entries[pk], catalog.revision == revision, catalog.name == name else { return nil }
            return catalog
        }
    }

    /// Keeps `catalog` (whose row key is `pk`) unless a later revision of it is kept already.
    func keep(_ catalog: Catalog, pk: Int64) {
        lock.withLock {
            if let kept = entries[pk], kept.revision > catalog.revision { return }
            if entries[pk] == nil, entries.count >= Self.limit { entries.removeAll(keepingCapacity: true) }
            entries[pk] = catalog
        }
    }
}
