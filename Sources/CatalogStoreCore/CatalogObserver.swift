import CatalogConcurrency
import CatalogDiff
import CatalogModel
import Foundation

/// What a ``CatalogObserver`` needs of its database: a notifier to wait on, where a catalogue
/// stands, and the update from one revision to the present. SQLite's store and PostgreSQL's
/// both provide it, so one observer serves both.
package protocol ObservedDatabase: CatalogDatabase {
    /// Wakes observers after commits (this process's at once, others' as the database tells).
    var notifier: ChangeNotifier { get }
    /// The live views its observers share.
    var views: SharedViews { get }
    /// The update of one write, from `revision` to the next, when this process made it and kept
    /// it (``StoreRules/keepAdvanced(by:snapshots:updates:)``): an observer that walks writes
    /// one at a time takes it instead of a diff of the catalogue.
    func keptUpdate(of name: String, from revision: Int) -> CatalogUpdate?
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


/// Updates computed lately, by catalogue and revisions: observers in step share each one, and
/// of those asking for one at the same moment, one computes it while the others wait for it.
package final class UpdateCache: Sendable {
    package struct Key: Hashable {
        package var name: String
        package var from: Int
        package var to: Int

        package init(name: String, from: Int, to: Int) {
            (self.name, self.from, self.to) = (name, from, to)
        }
    }

    package init() {}

    /// One key's update; of the callers that ask for it at once, the first computes it holding
    /// the entry's lock, the others wait on it.
    private typealias Entry = Locked<CatalogUpdate?>

    private let entries = Locked<[Key: Entry]>([:])
    private static let limit = 64

    private func entry(for key: Key) -> Entry {
        entries.withLock { entries in
            if let entry = entries[key] { return entry }
            if entries.count >= Self.limit {
                // The older half goes: observers a write or two behind still find theirs (a live
                // view's observer walks the writes one at a time through them).
                for old in entries.keys.sorted(by: { $0.to < $1.to }).prefix(Self.limit / 2) { entries[old] = nil }
            }
            let entry = Entry(nil)
            entries[key] = entry
            return entry
        }
    }

    /// The update kept for `key`, else `compute`'s, then kept (also under the revision it
    /// actually reached, which a later write may have taken past `key.to`).
    package func update(for key: Key, compute: () throws(StoreError) -> CatalogUpdate) throws(StoreError) -> CatalogUpdate {
        let (update, computed) = try entry(for: key).withLock { (kept) throws(StoreError) -> (CatalogUpdate, Bool) in
            if let kept { return (kept, false) }
            let update = try compute()
            kept = update
            return (update, true)
        }
        if computed, update.revision != key.to, update.changeset != nil {
            keep(update, for: Key(name: key.name, from: key.from, to: update.revision))
        }
        return update
    }

    /// The update kept for `key`, if any.
    package func kept(_ key: Key) -> CatalogUpdate? {
        entries.withLock { $0[key] }.flatMap { entry in entry.withLock { $0 } }
    }

    package func keep(_ update: CatalogUpdate, for key: Key) {
        entry(for: key).withLock { $0 = update }
    }
}

/// One observer of one catalogue: where it is, and how to get it to the present.
public final class CatalogObserver: Sendable {
    let store: any ObservedDatabase
    public let name: String
    private let resetThreshold: Int
    /// Where the observer is.
    private struct State {
        /// The revision the observer has; nil before its first update.
        var revision: Int?
        /// The catalogue at `revision`: the last update's (shares its storage with it).
        var held: Catalog?
        /// The revision the caller said it has, until the first update.
        var requested: Int?
        var retained = true
        var cancelled = false
    }
    private let state: Locked<State>
    /// Whether updates come one write at a time where the store kept them (a live view's
    /// observer), rather than one update covering every write missed.
    package let stepwise: Bool
    /// The notifier's failed polls before this observer started: a later one ends it.
    private let failuresBefore: Int

    package init(store: any ObservedDatabase, name: String, from revision: Int?, resetThreshold: Int, stepwise: Bool = false) {
        self.store = store
        self.stepwise = stepwise
        self.name = name
        self.resetThreshold = max(0, resetThreshold)
        state = Locked(State(requested: revision))
        failuresBefore = store.notifier.failureCount
        store.notifier.retain()
    }

    deinit { finish() }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// The revision this observer has reached (nil before its first update).
    public var currentRevision: Int? { state.withLock { $0.revision } }

    /// The next update: at once if the catalogue is past this observer's revision, otherwise
    /// after the next write to it. Nil when `timeout` passes first (a server sends a keep-alive
    /// then) or the task is cancelled.
    public func next(waitingAtMost timeout: Duration? = nil) async throws(StoreError) -> CatalogUpdate? {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        while !Task.isCancelled && !state.withLock({ $0.cancelled }) {
            if let failure = store.notifier.failure(after: failuresBefore) { throw failure }
            let (current, seen) = try await store.observedRevision(of: name)
            let (have, asked, catalog) = state.withLock { ($0.revision, $0.requested, $0.held) }
            if have == nil, let asked {
                guard asked <= current else {
                    throw .revisionNotReached(catalog: name, requested: asked, current: current)
                }
                state.withLock { (state: inout State) in
                    state.revision = asked
                    state.requested = nil
                }
                continue
            }
            if have != current {
                // One write at a time, while this process kept each: what a live view needs
                // (the items each write named), where a diff of the catalogue would cost it all.
                if stepwise, let have, let kept = store.keptUpdate(of: name, from: have), kept.revision == have + 1 {
                    state.withLock { ($0.revision, $0.held) = (kept.revision, kept.catalog) }
                    return kept
                }
                let update = try await store.update(of: name, since: have, having: catalog, current: current, resetThreshold: resetThreshold)
                // Never an update that brings nothing: each one moves the observer on.
                if update.revision != have {
                    state.withLock { ($0.revision, $0.held) = (update.revision, update.catalog) }
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
        state.withLock { $0.cancelled = true }
        store.notifier.wakeAll()
        finish()
    }

    /// Stops observing (also when the observer is released). Callers outside the package
    /// call ``cancel()``, which also ends a wait under way.
    package func finish() {
        let wasRetained = state.withLock { (state: inout State) in
            defer { state.retained = false }
            return state.retained
        }
        if wasRetained { store.notifier.release() }
    }
}

/// The updates of one catalogue as an `AsyncSequence` (`CatalogStore.updates(of:from:resetThreshold:)`).
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
