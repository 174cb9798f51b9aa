import CatalogConcurrency
import Foundation

/// Tells observers that the database may have changed: at once for a commit made through this
/// store, and as its watch learns of them for commits made by any other connection, process or
/// instance. A commit raises ``current``; waiters compare versions, so no commit between two
/// looks is missed.
///
/// How other connections' commits are learnt is the backend's: a SQLite file is looked at when
/// the file system says it was written (`ChangeNotifier(path:)` in `CatalogStore`); PostgreSQL
/// listens for the notifications its commits send. The watch runs only while anyone observes.
///
/// While anyone observes, the notifier also knows the catalogues' revisions: a commit through
/// this store says which it wrote, and the watch reports them all when another connection has
/// committed. A thousand observers woken by one commit then learn where their catalogue stands
/// without a thousand lookups in the database.
///
/// A watch that cannot read the database (a file removed or replaced, a read that fails) is a
/// failure every observer waiting then receives (``failure(after:)``): their sequences throw it
/// rather than stop hearing of other processes' writes without a word. The watch keeps trying,
/// for observers that start later.
package final class ChangeNotifier: Sendable {
    /// What keeps a notifier told of other processes' commits while anyone observes: a loop run in
    /// a task of its own until cancelled, given a way to reach the notifier (nil once it is gone).
    package typealias Watch = @Sendable (_ notifier: @escaping @Sendable () -> ChangeNotifier?) async -> Void

    /// What the notifier knows and who waits, behind one lock.
    private struct State {
        /// Raised by every commit seen.
        var version: UInt64 = 0
        /// Catalogue revisions as of `version`; a name missing is not known (ask the database).
        var known: [String: Int] = [:]
        var waiters: [Int: Waiter] = [:]
        var nextWaiter = 0
        /// Wakes waiters whose time is up; runs while any waiter has a deadline.
        var ticker: Task<Void, Never>?
        /// How many watches have failed, and the last failure.
        var failures = 0
        var lastFailure: StoreError?
        var observers = 0
        var poller: Task<Void, Never>?
        /// Set when the store closes: no observer starts the watch again.
        var closed = false
        var lookCount = 0
    }
    private let state = Locked(State())
    /// How often the ticker looks (the precision of a waiter's timeout).
    private let tick: Duration = .milliseconds(10)

    private struct Waiter {
        var continuation: CheckedContinuation<Void, Never>
        var deadline: ContinuousClock.Instant?
    }
    /// How other processes' commits are learnt; nil for a store in memory (no other connection
    /// can write it).
    private let watch: Watch?

    /// How many times the database was looked at for other connections' commits (tests and
    /// benchmarks count the looks of an idle store).
    package var looks: Int { state.withLock { $0.lookCount } }
    /// How many observers hold the notifier now (the watch runs while any does).
    package var observerCount: Int { state.withLock { $0.observers } }
    /// Counts a look at the database (the watch calls it once per look).
    package func countLook() { state.withLock { $0.lookCount += 1 } }

    /// A notifier that `watch` keeps told of other processes' commits (through ``didCommit(_:)``,
    /// ``didDelete(_:)``, ``didRead(_:)`` and ``watchFailed(_:)``) while anyone observes.
    package init(watch: Watch?) {
        self.watch = watch
    }

    /// Raised by every commit seen.
    package var current: UInt64 { state.withLock { $0.version } }

    /// A commit through this store that brought each catalogue named to its revision: wakes
    /// every waiter. (Revisions only grow, so of two commits reported out of order the later
    /// revision stands.)
    package func didCommit(_ revisions: [(name: String, revision: Int)]) {
        wakeWaiters { state in
            for (name, revision) in revisions {
                state.known[name] = max(state.known[name] ?? revision, revision)
            }
            return true
        }
    }

    /// Catalogues deleted through this store: wakes every waiter, whose catalogue may be gone.
    package func didDelete(_ names: [String]) {
        wakeWaiters { state in
            for name in names { state.known[name] = nil }
            return true
        }
    }

    /// The revision of catalogue `name` if known, and the version it is known as of.
    package func revision(of name: String) -> (revision: Int?, version: UInt64) {
        state.withLock { ($0.known[name], $0.version) }
    }

    /// What SQLite said of catalogue `name` after the caller saw `version`; kept unless a commit
    /// has come since (it may have made the answer old).
    package func remember(_ revision: Int, of name: String, asOf seen: UInt64) {
        state.withLock { state in
            if state.version == seen { state.known[name] = revision }
        }
    }

    /// A reading of every catalogue's revision (a poll after another connection committed, a
    /// listener that connected again): wakes the waiters when it differs from what was known
    /// (this store's own commits, already reported, do not wake them twice).
    package func didRead(_ revisions: [String: Int]) {
        wakeWaiters { state in
            var changed = false
            for (name, revision) in revisions where (state.known[name] ?? -1) < revision {
                state.known[name] = revision
                changed = true
            }
            for name in state.known.keys where revisions[name] == nil {
                state.known[name] = nil  // gone, or made since the watch read: ask the database
                changed = true
            }
            return changed
        }
    }

    /// A watch that failed for good: wakes every waiter, which finds the failure
    /// (``failure(after:)``).
    package func watchFailed(_ error: StoreError) {
        wakeWaiters { state in
            state.failures += 1
            state.lastFailure = error
            // What was known may be old now: ask the database again.
            state.known.removeAll()
            return true
        }
    }

    /// How many polls have failed so far: an observer remembers it when it starts.
    package var failureCount: Int { state.withLock { $0.failures } }

    /// The last failure of a poll, if any poll failed after the first `seen` failures.
    package func failure(after seen: Int) -> StoreError? {
        state.withLock { $0.failures > seen ? $0.lastFailure : nil }
    }

    /// Wakes every waiter without a commit: they look again and, finding nothing new, wait again
    /// (an observer that was cancelled stops).
    package func wakeAll() {
        wakeWaiters(raisingVersion: false) { _ in true }
    }

    /// Runs `change` under the lock; unless it says nothing changed, raises ``current`` (when
    /// `raisingVersion`) and wakes every waiter, once the lock is released.
    ///
    /// More than ``wakeInline`` waiters are woken by a task of background priority rather than by
    /// the caller: the caller is usually the writer, and a server with a thousand subscribers would
    /// otherwise queue a thousand wake-ups ahead of the rest of its write — its answer — so that
    /// a writer waiting for each answer got through far fewer writes (BENCHMARKS.md, fan-out).
    private func wakeWaiters(raisingVersion: Bool = true, _ change: (inout State) -> Bool) {
        let woken: [CheckedContinuation<Void, Never>] = state.withLock { state in
            guard change(&state) else { return [] }
            if raisingVersion { state.version &+= 1 }
            defer { state.waiters.removeAll() }
            return state.waiters.values.map(\.continuation)
        }
        if woken.count <= Self.wakeInline {
            for waiter in woken { waiter.resume() }
        } else {
            Task.detached(priority: .background) { for waiter in woken { waiter.resume() } }
        }
    }

    /// How many waiters a commit wakes itself (an app's few observers, without a task per commit).
    static let wakeInline = 16

    /// Returns once ``current`` is past `seen`, the task is cancelled, or `timeout` has passed
    /// (then returning false).
    ///
    /// Timeouts are kept by one ticker for all waiters, not a sleeping task per wait: a server
    /// waits once per event per subscriber, and a cancelled sleep holds its memory until its
    /// deadline.
    @discardableResult
    package func wait(after seen: UInt64, timeout: Duration? = nil) async -> Bool {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let deadline = timeout.map { ContinuousClock.now + $0 }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { (state: inout State) -> Bool in
                    if state.version > seen || Task.isCancelled { return true }
                    state.waiters[id] = Waiter(continuation: continuation, deadline: deadline)
                    if deadline != nil, state.ticker == nil { state.ticker = startTicker() }
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            wake(id)
        }
        return current > seen
    }

    private func wake(_ id: Int) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
    }

    /// The ticker's task (kept in the state, with the lock held).
    private func startTicker() -> Task<Void, Never> {
        Task.detached { [weak self, tick] in
            while let self {
                try? await Task.sleep(for: tick)
                guard let expired = self.expire() else { return }
                for continuation in expired { continuation.resume() }
            }
        }
    }

    /// Removes the waiters whose deadline has passed and returns them; nil (and the ticker
    /// stops) when no waiter has a deadline left.
    private func expire() -> [CheckedContinuation<Void, Never>]? {
        state.withLock { state in
            let now = ContinuousClock.now
            var expired: [CheckedContinuation<Void, Never>] = []
            var waiting = false
            for (id, waiter) in state.waiters {
                guard let deadline = waiter.deadline else { continue }
                if deadline <= now {
                    expired.append(waiter.continuation)
                    state.waiters[id] = nil
                } else {
                    waiting = true
                }
            }
            if !waiting && expired.isEmpty {
                state.ticker = nil
                return nil
            }
            return expired
        }
    }

    /// Someone starts observing: the poll for other processes' commits runs while anyone does.
    /// (Revisions known from before were not kept up with other processes' commits.)
    package func retain() {
        state.withLock { state in
            state.observers += 1
            if state.observers == 1, watch != nil { state.known.removeAll() }
            guard state.poller == nil, !state.closed, let watch else { return }
            state.poller = Task.detached { [weak self] in
                await watch { [weak self] in self }
            }
        }
    }

    /// Stops watching other connections for good (the store is closing): the poll ends and its
    /// connection with it, and no observer starts it again. Observers waiting receive `error`.
    package func stopWatching(_ error: StoreError) {
        let stopped: Task<Void, Never>? = state.withLock { state in
            state.closed = true
            defer { state.poller = nil }
            return state.poller
        }
        stopped?.cancel()
        watchFailed(error)
    }

    package func release() {
        let stopped: Task<Void, Never>? = state.withLock { state in
            state.observers -= 1
            guard state.observers == 0 else { return nil }
            defer { state.poller = nil }
            return state.poller
        }
        stopped?.cancel()
    }
}
