import Foundation
import GRDB

/// Tells observers that the database may have changed: at once for a commit made through this
/// store, and within a poll interval for a commit made by any other connection or process.
///
/// Other processes are noticed through SQLite's `PRAGMA data_version`, which changes on a
/// connection whenever another connection has committed since it last asked: one cheap statement
/// on a connection of the notifier's own, only while someone observes, and only when the file
/// system says the database's files were written (``DatabaseFileEvents``; at most every
/// `pollInterval`, and once in a while regardless) — an observed store with nothing changing costs
/// no wake-ups. Where the file system cannot say, the poll backs off while nothing changes.
/// (GRDB's own observation sees only the writes of its own pool.) A commit raises ``version``;
/// waiters compare versions, so no commit between two looks is missed.
///
/// While anyone observes, the notifier also knows the catalogues' revisions: a commit through
/// this store says which it wrote, and the poll reads them all when another connection has
/// committed. A thousand observers woken by one commit then learn where their catalogue stands
/// without a thousand SQLite lookups.
///
/// A poll that cannot read the database (its file removed or replaced, a read that fails) is a
/// failure every observer waiting then receives (``failure(after:)``): their sequences throw it
/// rather than stop hearing of other processes' writes without a word. The poll keeps trying,
/// for observers that start later.
package final class ChangeNotifier: @unchecked Sendable {
    /// What keeps a notifier told of other processes' commits while anyone observes: a loop run in
    /// a task of its own until cancelled, given a way to reach the notifier (nil once it is gone).
    package typealias Watch = @Sendable (_ notifier: @escaping @Sendable () -> ChangeNotifier?) async -> Void

    private let lock = NSLock()
    private var version: UInt64 = 0
    /// Catalogue revisions as of `version`; a name missing is not known (ask SQLite).
    private var known: [String: Int] = [:]
    private var waiters: [Int: Waiter] = [:]
    private var nextWaiter = 0
    /// Wakes waiters whose time is up; runs while any waiter has a deadline.
    private var ticker: Task<Void, Never>?
    /// How often the ticker looks (the precision of a waiter's timeout).
    private let tick: Duration = .milliseconds(10)

    private struct Waiter {
        var continuation: CheckedContinuation<Void, Never>
        var deadline: ContinuousClock.Instant?
    }
    /// How many polls have failed, and the last failure.
    private var failures = 0
    private var lastFailure: StoreError?
    private var observers = 0
    private var poller: Task<Void, Never>?
    /// How other processes' commits are learnt; nil for a store in memory (no other connection
    /// can write it).
    private let watch: Watch?

    /// A notifier for a SQLite file, which looks at it while anyone observes: when the file
    /// system says one of its files was written (``DatabaseFileEvents``), at most every
    /// `pollInterval`, and otherwise every ``DatabaseFileEvents/safetyInterval``; where the file
    /// system cannot say (or `fileEvents` is false), every `pollInterval` after a change, backing
    /// off to ``idlePollInterval`` while nothing changes.
    package init(path: String, options: StoreConfiguration = StoreConfiguration(), pollInterval: Duration = .milliseconds(10),
         fileEvents: Bool = true) {
        if path == ":memory:" || path.isEmpty {
            watch = nil
        } else {
            let poll: Watch = { notifier in
                await ChangeNotifier.poll(path: path, options: options, every: pollInterval, fileEvents: fileEvents, notifier)
            }
            watch = poll
        }
    }

    /// How many looks, `pollInterval` apart, follow a file event until one shows a commit.
    static let graceLooks = 20

    /// The longest a poll without file events waits between looks while nothing changes.
    static let idlePollInterval: Duration = .seconds(1)

    /// How many times the database was looked at for other connections' commits (tests and
    /// benchmarks count the looks of an idle store).
    package var looks: Int { lock.withLock { lookCount } }
    private var lookCount = 0
    private func counted() { lock.withLock { lookCount += 1 } }

    /// A notifier that `watch` keeps told of other processes' commits (through ``didCommit(_:)``,
    /// ``didDelete(_:)``, ``didRead(_:)`` and ``watchFailed(_:)``) while anyone observes.
    package init(watch: @escaping Watch) {
        self.watch = watch
    }

    /// Raised by every commit seen.
    package var current: UInt64 { lock.withLock { version } }

    /// A commit through this store that brought each catalogue named to its revision: wakes
    /// every waiter. (Revisions only grow, so of two commits reported out of order the later
    /// revision stands.)
    package func didCommit(_ revisions: [(name: String, revision: Int)]) {
        wakeWaiters {
            for (name, revision) in revisions {
                known[name] = max(known[name] ?? revision, revision)
            }
            return true
        }
    }

    /// Catalogues deleted through this store: wakes every waiter, whose catalogue may be gone.
    package func didDelete(_ names: [String]) {
        wakeWaiters {
            for name in names { known[name] = nil }
            return true
        }
    }

    /// The revision of catalogue `name` if known, and the version it is known as of.
    package func revision(of name: String) -> (revision: Int?, version: UInt64) {
        lock.withLock { (known[name], version) }
    }

    /// What SQLite said of catalogue `name` after the caller saw `version`; kept unless a commit
    /// has come since (it may have made the answer old).
    package func remember(_ revision: Int, of name: String, asOf seen: UInt64) {
        lock.withLock {
            if version == seen { known[name] = revision }
        }
    }

    /// A reading of every catalogue's revision (a poll after another connection committed, a
    /// listener that connected again): wakes the waiters when it differs from what was known
    /// (this store's own commits, already reported, do not wake them twice).
    package func didRead(_ revisions: [String: Int]) {
        wakeWaiters {
            var changed = false
            for (name, revision) in revisions where (known[name] ?? -1) < revision {
                known[name] = revision
                changed = true
            }
            for name in known.keys where revisions[name] == nil {
                known[name] = nil  // gone, or made since the poll read: ask SQLite
                changed = true
            }
            return changed
        }
    }

    /// A watch that failed for good: wakes every waiter, which finds the failure
    /// (``failure(after:)``).
    package func watchFailed(_ error: StoreError) {
        wakeWaiters {
            failures += 1
            lastFailure = error
            // What was known may be old now: ask SQLite again.
            known.removeAll()
            return true
        }
    }

    /// How many polls have failed so far: an observer remembers it when it starts.
    package var failureCount: Int { lock.withLock { failures } }

    /// The last failure of a poll, if any poll failed after the first `seen` failures.
    package func failure(after seen: Int) -> StoreError? {
        lock.withLock { failures > seen ? lastFailure : nil }
    }

    /// Wakes every waiter without a commit: they look again and, finding nothing new, wait again
    /// (an observer that was cancelled stops).
    package func wakeAll() {
        wakeWaiters(raisingVersion: false) { true }
    }

    /// Runs `change` under the lock; unless it says nothing changed, raises ``current`` (when
    /// `raisingVersion`) and wakes every waiter, once the lock is released.
    ///
    /// More than ``wakeInline`` waiters are woken by a task of background priority rather than by
    /// the caller: the caller is usually the writer, and a server with a thousand subscribers would
    /// otherwise queue a thousand wake-ups ahead of the rest of its write — its answer — so that
    /// a writer waiting for each answer got through far fewer writes (BENCHMARKS.md, fan-out).
    private func wakeWaiters(raisingVersion: Bool = true, _ change: () -> Bool) {
        let woken: [CheckedContinuation<Void, Never>] = lock.withLock {
            guard change() else { return [] }
            if raisingVersion { version &+= 1 }
            defer { waiters.removeAll() }
            return waiters.values.map(\.continuation)
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
        let id = lock.withLock {
            nextWaiter += 1
            return nextWaiter
        }
        let deadline = timeout.map { ContinuousClock.now + $0 }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = lock.withLock { () -> Bool in
                    if version > seen || Task.isCancelled { return true }
                    waiters[id] = Waiter(continuation: continuation, deadline: deadline)
                    if deadline != nil, ticker == nil { startTicker() }
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
        lock.withLock { waiters.removeValue(forKey: id) }?.continuation.resume()
    }

    /// Called with the lock held.
    private func startTicker() {
        ticker = Task.detached { [weak self, tick] in
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
        lock.withLock {
            let now = ContinuousClock.now
            var expired: [CheckedContinuation<Void, Never>] = []
            var waiting = false
            for (id, waiter) in waiters {
                guard let deadline = waiter.deadline else { continue }
                if deadline <= now {
                    expired.append(waiter.continuation)
                    waiters[id] = nil
                } else {
                    waiting = true
                }
            }
            if !waiting && expired.isEmpty {
                ticker = nil
                return nil
            }
            return expired
        }
    }

    /// Someone starts observing: the poll for other processes' commits runs while anyone does.
    /// (Revisions known from before were not kept up with other processes' commits.)
    package func retain() {
        lock.withLock {
            observers += 1
            if observers == 1, watch != nil { known.removeAll() }
            guard poller == nil, !closed, let watch else { return }
            poller = Task.detached { [weak self] in
                await watch { [weak self] in self }
            }
        }
    }

    /// Stops watching other connections for good (the store is closing): the poll ends and its
    /// connection with it, and no observer starts it again. Observers waiting receive `error`.
    package func stopWatching(_ error: StoreError) {
        let stopped: Task<Void, Never>? = lock.withLock {
            closed = true
            defer { poller = nil }
            return poller
        }
        stopped?.cancel()
        watchFailed(error)
    }
    private var closed = false

    package func release() {
        let stopped: Task<Void, Never>? = lock.withLock {
            observers -= 1
            guard observers == 0 else { return nil }
            defer { poller = nil }
            return poller
        }
        stopped?.cancel()
    }

    private static func poll(path: String, options: StoreConfiguration, every interval: Duration, fileEvents: Bool,
                             _ notifier: () -> ChangeNotifier?) async {
        let events = fileEvents ? DatabaseFileEvents(path: path) : nil
        defer { events?.stop() }
        let clock = ContinuousClock()
        /// Without file events: how long to wait before the next look (doubling while nothing changes).
        var backoff = interval
        /// With file events: how many more looks after an event that showed no commit yet.
        var graceLooks = 0
        var watched: WatchedFile?
        // The first look reads the revisions too: a commit made after an observer's own first
        // look but before the poll began is caught here.
        var last: Int? = nil
        while !Task.isCancelled {
            let looked = clock.now
            var changed = false
            notifier()?.counted()
            do {
                let file = try watched ?? WatchedFile(path: path, options: options)
                watched = file
                try file.checkStillThere()
                let now = try file.connection.inDatabase { db in try Int.fetchOne(db, sql: "PRAGMA data_version") }
                if now != last || last == nil {
                    let revisions = try file.connection.inDatabase { db in
                        try Dictionary(Row.fetchAll(db, sql: "SELECT name, revision FROM catalog").map { ($0[0] as String, $0[1] as Int) },
                                       uniquingKeysWith: max)
                    }
                    changed = last != nil
                    last = now
                    notifier()?.didRead(revisions)
                }
            } catch {
                // Opened again at the next look, and everything read again.
                (watched, last) = (nil, nil)
                let reason = if case StoreError.database(let message) = error { message } else { CatalogStore.describe(error) }
                notifier()?.watchFailed(.cannotWatch(path: path, reason: reason))
            }
            if let events {
                if changed || graceLooks == 0 {
                    // Looks again after a file event; after the safety interval, one look.
                    graceLooks = await events.next() ? Self.graceLooks : 0
                } else {
                    // A write seen before its commit is visible (SQLite writes the log, then its
                    // index in shared memory, which the file system does not report): look again.
                    graceLooks -= 1
                }
                // A busy writer's commits are looked at together, at most once an interval.
                let since = clock.now - looked
                if since < interval { try? await Task.sleep(for: interval - since) }
            } else {
                backoff = changed ? interval : min(backoff * 2, idlePollInterval)
                try? await Task.sleep(for: backoff)
            }
        }
    }
}

/// The poll's own read-only connection to the database file, and which file it is: a file
/// removed, or replaced by another, is noticed (the connection would go on reading the old one).
private struct WatchedFile {
    let path: String
    let connection: DatabaseQueue
    let identity: (device: UInt64, inode: UInt64)

    init(path: String, options: StoreConfiguration) throws {
        self.path = path
        identity = try Self.identity(of: path)
        var configuration = Configuration()
        options.apply(to: &configuration)
        configuration.readonly = true
        configuration.label = "CatalogKit.ChangeNotifier"
        connection = try DatabaseQueue(path: path, configuration: configuration)
    }

    func checkStillThere() throws {
        guard try Self.identity(of: path) == identity else {
            throw StoreError.database("the database file was replaced by another")
        }
    }

    /// The file's device and inode: one `stat` call, every poll.
    private static func identity(of path: String) throws -> (device: UInt64, inode: UInt64) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw StoreError.database("the database file is gone") }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }
}
