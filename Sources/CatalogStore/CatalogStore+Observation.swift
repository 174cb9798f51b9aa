import CatalogDiff
import CatalogModel
import CatalogStoreCore
import Foundation

extension CatalogStore {
    /// Every change to the catalogue named `name`, as it happens (docs/Live-updates.md).
    ///
    /// The first update is a reset with the current snapshot — or, when `revision` names one the
    /// caller already has, the changeset from there (a reset if the journal no longer reaches it;
    /// nothing until the next write if it is current). Each later update starts where the one
    /// before ended: no revision is skipped or repeated, and a consumer slower than the writers
    /// gets one update covering every write it missed, never a queue of them. A changeset of more
    /// than `resetThreshold` operations comes as a reset.
    ///
    /// Writes through any ``CatalogStore`` in this process are seen at once; writes by another
    /// process on the same file within a poll interval (10 ms). Observers of one catalogue at the
    /// same revision share one computation per update. The sequence ends when the consuming task
    /// is cancelled, and throws ``/CatalogStoreCore/StoreError/unknownCatalog(_:)`` when the catalogue is not (or no
    /// longer) there, ``/CatalogStoreCore/StoreError/revisionNotReached(catalog:requested:current:)`` for a
    /// `revision` the catalogue has not reached, and ``/CatalogStoreCore/StoreError/cannotWatch(path:reason:)`` when
    /// the database can no longer be watched for other processes' writes (its file removed or
    /// replaced, a read that fails): an observer never goes silent without a word.
    public func updates(of name: String, from revision: Int? = nil, resetThreshold: Int = 10_000) -> CatalogUpdates {
        CatalogUpdates(observer: observer(of: name, from: revision, resetThreshold: resetThreshold))
    }

    /// The observer behind ``updates(of:from:resetThreshold:)``, for callers that also need to
    /// wait with a time limit (a server sending keep-alives): ``/CatalogStoreCore/CatalogObserver/next(waitingAtMost:)``.
    public func observer(of name: String, from revision: Int? = nil, resetThreshold: Int = 10_000) -> CatalogObserver {
        CatalogObserver(store: self, name: name, from: revision, resetThreshold: resetThreshold)
    }

    /// The update from `revision` (nil: a reset) to `current` or later, in one read
    /// transaction; observers asking for the same one at once share one computation. The
    /// observer's `held` catalogue is not needed here: a local journal rebuilds `revision` at
    /// little cost.
    package func keptUpdate(of name: String, from revision: Int) -> CatalogUpdate? {
        updateCache.kept(UpdateCache.Key(name: name, from: revision, to: revision + 1))
    }

    package func update(of name: String, since revision: Int?, having held: Catalog?, current: Int,
                        resetThreshold: Int) throws(StoreError) -> CatalogUpdate {
        guard let revision else { return .reset(try catalog(named: name)) }
        return try updateCache.update(for: UpdateCache.Key(name: name, from: revision, to: current)) { () throws(StoreError) in
            do throws(StoreError) {
                let (old, current, restoredContent, _) = try revisions(of: name, since: revision)
                return try StoreRules.update(from: old, to: current, restoredContent: restoredContent, resetThreshold: resetThreshold)
            } catch .revisionTooOld {
                return .reset(try catalog(named: name))
            }
        }
    }
}

extension CatalogStore: ObservedDatabase {}
