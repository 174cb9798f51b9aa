import Foundation
import NIOConcurrencyHelpers
import NIOCore

/// Values by key and revision — response bodies, prepared layouts — for reads of catalogues
/// that have not changed.
///
/// Requests that miss the same entry at the same time share one computation: after a write, or
/// when a server starts, 64 clients asking for the same change feed make one body, not 64.
/// A computation goes on while one of its requests still waits for it: when every one of them
/// is cancelled (their clients have gone, ``ClientPresence``), it is cancelled too and leaves
/// the cache, so the next request starts afresh. Bounded by a number of entries and by the cost
/// (bytes) of the values it keeps; past either, the least recently used entries leave, one at a
/// time (a client asking for one new key after another evicts only entries nobody used since).
final class RevisionCache<Value: Sendable>: Sendable {
    private let entries: NIOLockedValueBox<LRUCache<String, Entry>>
    private let cost: @Sendable (Value) -> Int

    private struct Entry: Sendable {
        var revision: Int
        var computation: Computation
    }

    /// One computation and the requests waiting for it; its counts are guarded by the lock of
    /// `entries`.
    private final class Computation: @unchecked Sendable {
        var task: Task<Value, any Error>?
        var waiters = 1
        var finished = false
    }

    /// One request's wait for a computation: it leaves once, whether cancelled or answered.
    private final class Wait: @unchecked Sendable {
        var left = false
    }

    init(limit: Int, budget: Int, cost: @escaping @Sendable (Value) -> Int) {
        entries = NIOLockedValueBox(LRUCache(limit: limit, budget: budget))
        self.cost = cost
    }

    /// The number of values kept (tests).
    var count: Int { entries.withLockedValue { $0.count } }

    /// The number of requests waiting for `key`'s computation (tests).
    func waiters(for key: String) -> Int {
        entries.withLockedValue { entries in entries.value(for: key).map { $0.computation.finished ? 0 : $0.computation.waiters } ?? 0 }
    }

    /// The cached value for `key` at `revision`, or `make()`'s. A failed `make()` is not kept:
    /// the next request tries again.
    /// - Throws: `make()`'s error, or `CancellationError` when every request waiting for this
    ///   computation was cancelled before it finished.
    func value(for key: String, revision: Int, make: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let (computation, task, made): (Computation, Task<Value, any Error>, Bool) = entries.withLockedValue { entries in
            if let entry = entries.value(for: key), entry.revision == revision, let task = entry.computation.task {
                entry.computation.waiters += 1
                return (entry.computation, task, false)
            }
            let computation = Computation()
            let task = Task {
                defer { self.entries.withLockedValue { _ in computation.finished = true } }
                return try await make()
            }
            computation.task = task
            entries.set(Entry(revision: revision, computation: computation), for: key)
            return (computation, task, true)
        }
        let wait = Wait()
        do {
            let value = try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                leave(computation, wait, key: key, cancelled: true)
            }
            leave(computation, wait, key: key, cancelled: false)
            if made {
                let spent = cost(value)
                entries.withLockedValue { entries in
                    if let entry = entries.value(for: key), entry.computation === computation { entries.addCost(spent, for: key) }
                }
            }
            return value
        } catch {
            leave(computation, wait, key: key, cancelled: false)
            entries.withLockedValue { entries in
                if let entry = entries.value(for: key), entry.computation === computation { entries.removeValue(for: key) }
            }
            throw error
        }
    }

    /// A request stops waiting for `computation`; when it was the last one and was cancelled
    /// before the value came, nobody wants the value: the computation is cancelled and
    /// forgotten (a later request makes its own).
    private func leave(_ computation: Computation, _ wait: Wait, key: String, cancelled: Bool) {
        let abandoned: Task<Value, any Error>? = entries.withLockedValue { entries in
            guard !wait.left else { return nil }
            wait.left = true
            computation.waiters -= 1
            guard cancelled, computation.waiters == 0, !computation.finished else { return nil }
            if let entry = entries.value(for: key), entry.computation === computation { entries.removeValue(for: key) }
            return computation.task
        }
        abandoned?.cancel()
    }
}

/// A response body and the revision it shows.
struct CachedBody: Sendable {
    var revision: Int
    var body: ByteBuffer
}

/// Response bodies by key and revision; their bytes count against the budget.
typealias ResponseCache = RevisionCache<CachedBody>

extension RevisionCache where Value == CachedBody {
    convenience init(limit: Int = 256, byteBudget: Int = 64 << 20) {
        self.init(limit: limit, budget: byteBudget, cost: { $0.body.readableBytes })
    }

    /// The cached body for `key` at `revision`, or `make()`'s (which says its own revision).
    func body(for key: String, revision: Int, make: @escaping @Sendable () async throws -> (revision: Int, body: ByteBuffer)) async throws
        -> (revision: Int, body: ByteBuffer) {
        let cached = try await value(for: key, revision: revision) {
            let (revision, body) = try await make()
            return CachedBody(revision: revision, body: body)
        }
        return (cached.revision, cached.body)
    }
}
