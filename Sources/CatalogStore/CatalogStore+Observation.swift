import CatalogDiff
import CatalogModel
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
    /// is cancelled, and throws ``StoreError/unknownCatalog(_:)`` when the catalogue is not (or no
    /// longer) there, ``StoreError/revisionNotReached(catalog:requested:current:)`` for a
    /// `revision` the catalogue has not reached, and ``StoreError/cannotWatch(path:reason:)`` when
    /// the database can no longer be watched for other processes' writes (its file removed or
    /// replaced, a read that fails): an observer never goes silent without a word.
    public func updates(of name: String, from revision: Int? = nil, resetThreshold: Int = 10_000) -> CatalogUpdates {
        CatalogUpdates(observer: observer(of: name, from: revision, resetThreshold: resetThreshold))
    }

    /// The observer behind ``updates(of:from:resetThreshold:)``, for callers that also need to
    /// wait with a time limit (a server sending keep-alives): ``CatalogObserver/next(waitingAtMost:)``.
    public func observer(of name: String, from revision: Int? = nil, resetThreshold: Int = 10_000) -> CatalogObserver {
        CatalogObserver(store: self, name: name, from: revision, resetThreshold: resetThreshold)
    }

    /// The update from `revision` (nil: a reset) to `current` or later, in one read
    /// transaction; observers asking for the same one at once share one computation. The
    /// observer's `held` catalogue is not needed here: a local journal rebuilds `revision` at
    /// little cost.
    package func update(of name: String, since revision: Int?, having held: Catalog?, current: Int,
                        resetThreshold: Int) throws(StoreError) -> CatalogUpdate {
        guard let revision else { return .reset(try catalog(named: name)) }
        return try updateCache.update(for: UpdateCache.Key(name: name, from: revision, to: current)) { () throws(StoreError) in
            do throws(StoreError) {
                let (old, current, restoredContent, _) = try revisions(of: name, since: revision)
                return try Self.update(from: old, to: current, restoredContent: restoredContent, resetThreshold: resetThreshold)
            } catch .revisionTooOld {
                return .reset(try catalog(named: name))
            }
        }
    }

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

/// What a ``CatalogObserver`` needs of its database: a notifier to wait on, where a catalogue
/// stands, and the update from one revision to the present. SQLite's store and PostgreSQL's
/// both provide it, so one observer serves both.
package protocol ObservedDatabase: CatalogDatabase {
    /// Wakes observers after commits (this process's at once, others' as the database tells).
    var notifier: ChangeNotifier { get }
    /// The update from `revision` (nil: a reset) to `current` or later. `held` is the catalogue
    /// at `revision` when the observer has it (its last update's): a store may diff from it
    /// instead of rebuilding that revision through the journal.
    func update(of name: String, since revision: Int?, having held: Catalog?, current: Int, resetThreshold: Int) async throws(StoreError) -> CatalogUpdate
}

extension ObservedDatabase {
    /// The revision of catalogue `name` as the observers know it: from the notifier when a
    /// commit or a watch has told it, else from the database (and then remembered). Also the
    /// version of commits seen it stands for: waiting after that version misses nothing.
    func observedRevision(of name: String) async throws(StoreError) -> (revision: Int, version: UInt64) {
        let (known, version) = notifier.revision(of: name)
        if let known { return (known, version) }
        let revision = try await revision(of: name)
        notifier.remember(revision, of: name, asOf: version)
        return (revision, version)
    }
}

extension CatalogStore: ObservedDatabase {}

/// Updates computed lately, by catalogue and revisions: observers in step share each one, and
/// of those asking for one at the same moment, one computes it while the others wait for it.
package final class UpdateCache: @unchecked Sendable {
    package struct Key: Hashable {
        package var name: String
        package var from: Int
        package var to: Int

        package init(name: String, from: Int, to: Int) {
            (self.name, self.from, self.to) = (name, from, to)
        }
    }

    package init() {}

    private final class Entry: @unchecked Sendable {
        let lock = NSLock()
        var update: CatalogUpdate?
    }

    private let lock = NSLock()
    private var entries: [Key: Entry] = [:]
    private let limit = 32

    private func entry(for key: Key) -> Entry {
        lock.withLock {
            if let entry = entries[key] { return entry }
            if entries.count >= limit { entries.removeAll(keepingCapacity: true) }
            let entry = Entry()
            entries[key] = entry
            return entry
        }
    }

    /// The update kept for `key`, else `compute`'s, then kept (also under the revision it
    /// actually reached, which a later write may have taken past `key.to`).
    package func update(for key: Key, compute: () throws(StoreError) -> CatalogUpdate) throws(StoreError) -> CatalogUpdate {
        let entry = entry(for: key)
        entry.lock.lock()
        defer { entry.lock.unlock() }
        if let update = entry.update { return update }
        let update = try compute()
        entry.update = update
        if update.revision != key.to, update.changeset != nil {
            keep(update, for: Key(name: key.name, from: key.from, to: update.revision))
        }
        return update
    }

    /// The update kept for `key`, if any.
    package func kept(_ key: Key) -> CatalogUpdate? {
        let entry = lock.withLock { entries[key] }
        return entry.flatMap { entry in entry.lock.withLock { entry.update } }
    }

    package func keep(_ update: CatalogUpdate, for key: Key) {
        let entry = entry(for: key)
        entry.lock.withLock { entry.update = update }
    }
}

/// One observer of one catalogue: where it is, and how to get it to the present.
public final class CatalogObserver: @unchecked Sendable {
    let store: any ObservedDatabase
    public let name: String
    private let resetThreshold: Int
    private let lock = NSLock()
    /// The revision the observer has; nil before its first update.
    private var revision: Int?
    /// The catalogue at ``revision``: the last update's (shares its storage with it).
    private var held: Catalog?
    /// The revision the caller said it has, until the first update.
    private var requested: Int?
    private var retained = true
    private var cancelled = false
    /// The notifier's failed polls before this observer started: a later one ends it.
    private let failuresBefore: Int

    package init(store: any ObservedDatabase, name: String, from revision: Int?, resetThreshold: Int) {
        self.store = store
        self.name = name
        self.resetThreshold = max(0, resetThreshold)
        requested = revision
        failuresBefore = store.notifier.failureCount
        store.notifier.retain()
    }

    deinit { finish() }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { lock.withLock { cancelled } }

    /// The revision this observer has reached (nil before its first update).
    public var currentRevision: Int? { lock.withLock { revision } }

    /// The next update: at once if the catalogue is past this observer's revision, otherwise
    /// after the next write to it. Nil when `timeout` passes first (a server sends a keep-alive
    /// then) or the task is cancelled.
    public func next(waitingAtMost timeout: Duration? = nil) async throws(StoreError) -> CatalogUpdate? {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        while !Task.isCancelled && !lock.withLock({ cancelled }) {
            if let failure = store.notifier.failure(after: failuresBefore) { throw failure }
            let (current, seen) = try await store.observedRevision(of: name)
            let (have, asked, catalog) = lock.withLock { (revision, requested, held) }
            if have == nil, let asked {
                guard asked <= current else {
                    throw .revisionNotReached(catalog: name, requested: asked, current: current)
                }
                lock.withLock {
                    revision = asked
                    requested = nil
                }
                continue
            }
            if have != current {
                let update = try await store.update(of: name, since: have, having: catalog, current: current, resetThreshold: resetThreshold)
                // Never an update that brings nothing: each one moves the observer on.
                if update.revision != have {
                    lock.withLock { (revision, held) = (update.revision, update.catalog) }
                    return update
                }
            }
            let remaining = deadline.map { $0 - ContinuousClock.now }
            if let remaining, remaining <= .zero { return nil }
            await store.notifier.wait(after: seen, timeout: remaining)
        }
        return nil
    }

    /// Ends the observation from anywhere: a ``next(waitingAtMost:)`` under way returns nil at
    /// once, and so does every later one.
    public func cancel() {
        lock.withLock { cancelled = true }
        store.notifier.wakeAll()
        finish()
    }

    /// Stops observing (also when the observer is released). Callers outside the package
    /// call ``cancel()``, which also ends a wait under way.
    package func finish() {
        let wasRetained = lock.withLock {
            defer { retained = false }
            return retained
        }
        if wasRetained { store.notifier.release() }
    }
}

/// The updates of one catalogue as an `AsyncSequence` (``CatalogStore/updates(of:from:resetThreshold:)``).
public struct CatalogUpdates: AsyncSequence, Sendable {
    public typealias Element = CatalogUpdate
    let observer: CatalogObserver

    package init(observer: CatalogObserver) {
        self.observer = observer
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(observer: observer)
    }

    public struct Iterator: AsyncIteratorProtocol {
        let observer: CatalogObserver

        public mutating func next() async throws -> CatalogUpdate? {
            guard let update = try await observer.next() else {
                observer.finish()
                return nil
            }
            return update
        }
    }
}
