import Foundation
import NIOConcurrencyHelpers
import NIOCore

/// Values by key and revision — response bodies, prepared layouts — for reads of catalogues
/// that have not changed.
///
/// Requests that miss the same entry at the same time share one computation: after a write, or
/// when a server starts, 64 clients asking for the same change feed make one body, not 64.
/// Bounded by a number of entries and by the cost (bytes) of the values it keeps; past either,
/// the least recently used entries leave, one at a time (a client asking for one new key after
/// another evicts only entries nobody used since).
final class RevisionCache<Value: Sendable>: Sendable {
    private let entries: NIOLockedValueBox<LRUCache<String, Entry>>
    private let cost: @Sendable (Value) -> Int

    private struct Entry: Sendable {
        var revision: Int
        var value: Task<Value, any Error>
    }

    init(limit: Int, budget: Int, cost: @escaping @Sendable (Value) -> Int) {
        entries = NIOLockedValueBox(LRUCache(limit: limit, budget: budget))
        self.cost = cost
    }

    /// The number of values kept (tests).
    var count: Int { entries.withLockedValue { $0.count } }

    /// The cached value for `key` at `revision`, or `make()`'s. A failed `make()` is not kept:
    /// the next request tries again.
    func value(for key: String, revision: Int, make: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let (task, made): (Task<Value, any Error>, Bool) = entries.withLockedValue { entries in
            if let entry = entries.value(for: key), entry.revision == revision { return (entry.value, false) }
            let task = Task { try await make() }
            entries.set(Entry(revision: revision, value: task), for: key)
            return (task, true)
        }
        do {
            let value = try await task.value
            if made {
                let spent = cost(value)
                entries.withLockedValue { entries in
                    if let entry = entries.value(for: key), entry.revision == revision { entries.addCost(spent, for: key) }
                }
            }
            return value
        } catch {
            entries.withLockedValue { entries in
                if let entry = entries.value(for: key), entry.revision == revision { entries.removeValue(for: key) }
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
