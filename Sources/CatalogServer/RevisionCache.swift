import Foundation
import NIOCore

/// Values by key and revision — response bodies, prepared layouts — for reads of catalogues
/// that have not changed.
///
/// Requests that miss the same entry at the same time share one computation: after a write, or
/// when a server starts, 64 clients asking for the same change feed make one body, not 64.
/// Bounded by a number of entries and by the cost (bytes) of the values it keeps; past either,
/// it starts afresh.
final class RevisionCache<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String: (revision: Int, value: Task<Value, any Error>)] = [:]
    private var spent = 0
    private let limit: Int
    private let budget: Int
    private let cost: @Sendable (Value) -> Int

    init(limit: Int, budget: Int, cost: @escaping @Sendable (Value) -> Int) {
        self.limit = limit
        self.budget = budget
        self.cost = cost
    }

    /// The cached value for `key` at `revision`, or `make()`'s. A failed `make()` is not kept:
    /// the next request tries again.
    func value(for key: String, revision: Int, make: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let (task, made): (Task<Value, any Error>, Bool) = lock.withLock {
            if let entry = entries[key], entry.revision == revision { return (entry.value, false) }
            if entries.count >= limit || spent > budget {
                entries.removeAll(keepingCapacity: true)
                spent = 0
            }
            let task = Task { try await make() }
            entries[key] = (revision, task)
            return (task, true)
        }
        do {
            let value = try await task.value
            if made { lock.withLock { spent += cost(value) } }
            return value
        } catch {
            lock.withLock {
                if let entry = entries[key], entry.revision == revision { entries[key] = nil }
            }
            throw error
        }
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
