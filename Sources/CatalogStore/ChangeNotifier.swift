import Foundation
import GRDB

/// Tells observers that the database may have changed: at once for a commit made through this
/// store, and within a poll interval for a commit made by any other connection or process.
///
/// Other processes are noticed through SQLite's `PRAGMA data_version`, which changes on a
/// connection whenever another connection has committed since it last asked: one cheap statement
/// on a connection of the notifier's own, every `pollInterval`, and only while someone observes.
/// (GRDB's own observation sees only the writes of its own pool.) A commit raises ``version``;
/// waiters compare versions, so no commit between two looks is missed.
final class ChangeNotifier: @unchecked Sendable {
    private let lock = NSLock()
    private var version: UInt64 = 0
    private var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiter = 0
    private var observers = 0
    private var poller: Task<Void, Never>?
    /// The database file, or nil for a store in memory (no other connection can write it).
    private let path: String?
    let pollInterval: Duration

    init(path: String, pollInterval: Duration = .milliseconds(10)) {
        self.path = path == ":memory:" || path.isEmpty ? nil : path
        self.pollInterval = pollInterval
    }

    /// Raised by every commit seen.
    var current: UInt64 { lock.withLock { version } }

    /// A commit through this store: wakes every waiter.
    func didCommit() {
        let woken: [CheckedContinuation<Void, Never>] = lock.withLock {
            version &+= 1
            defer { waiters.removeAll() }
            return Array(waiters.values)
        }
        for waiter in woken { waiter.resume() }
    }

    /// Wakes every waiter without a commit: they look again and, finding nothing new, wait again
    /// (an observer that was cancelled stops).
    func wakeAll() {
        let woken: [CheckedContinuation<Void, Never>] = lock.withLock {
            defer { waiters.removeAll() }
            return Array(waiters.values)
        }
        for waiter in woken { waiter.resume() }
    }

    /// Returns once ``current`` is past `seen`, the task is cancelled, or `timeout` has passed
    /// (then returning false).
    @discardableResult
    func wait(after seen: UInt64, timeout: Duration? = nil) async -> Bool {
        let id = lock.withLock {
            nextWaiter += 1
            return nextWaiter
        }
        let timer = timeout.map { timeout in
            Task { [weak self] in
                try? await Task.sleep(for: timeout)
                self?.wake(id)
            }
        }
        defer { timer?.cancel() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = lock.withLock { () -> Bool in
                    if version > seen || Task.isCancelled { return true }
                    waiters[id] = continuation
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
        lock.withLock { waiters.removeValue(forKey: id) }?.resume()
    }

    /// Someone starts observing: the poll for other processes' commits runs while anyone does.
    func retain() {
        lock.withLock {
            observers += 1
            guard poller == nil, let path else { return }
            poller = Task.detached { [weak self, pollInterval] in
                await Self.poll(path: path, every: pollInterval) { self }
            }
        }
    }

    func release() {
        let stopped: Task<Void, Never>? = lock.withLock {
            observers -= 1
            guard observers == 0 else { return nil }
            defer { poller = nil }
            return poller
        }
        stopped?.cancel()
    }

    private static func poll(path: String, every interval: Duration, _ notifier: () -> ChangeNotifier?) async {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = "CatalogKit.ChangeNotifier"
        guard let connection = try? DatabaseQueue(path: path, configuration: configuration) else { return }
        var last = try? connection.inDatabase { db in try Int.fetchOne(db, sql: "PRAGMA data_version") }
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            let now = try? connection.inDatabase { db in try Int.fetchOne(db, sql: "PRAGMA data_version") }
            if now != last {
                last = now
                notifier()?.didCommit()
            }
        }
    }
}
