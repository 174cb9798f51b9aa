import NIOConcurrencyHelpers

/// Values by key, at most `limit` of them and at most `budget` of cost, the least recently used
/// leaving first when either would be passed — one at a time, so that a client asking for one
/// new key after another evicts only what nobody used since, never everything.
///
/// Not synchronized: its owner holds it under a lock.
///
/// - Complexity: O(1) for a look-up, an insertion and each eviction.
struct LRUCache<Key: Hashable, Value> {
    fileprivate struct Node {
        var key: Key
        var value: Value
        var cost: Int
        var older: Int
        var newer: Int
    }

    private var index: [Key: Int] = [:]
    private var nodes: [Node] = []
    private var free: [Int] = []
    /// The most and least recently used nodes (-1 when empty).
    private var newest = -1
    private var oldest = -1
    private(set) var cost = 0
    let limit: Int
    let budget: Int

    init(limit: Int, budget: Int = .max) {
        precondition(limit >= 1, "an LRU cache holds at least one value")
        self.limit = limit
        self.budget = budget
    }

    var count: Int { index.count }

    /// The value for `key`, which becomes the most recently used.
    mutating func value(for key: Key) -> Value? {
        guard let node = index[key] else { return nil }
        touch(node)
        return nodes[node].value
    }

    /// Sets `key`'s value (the most recently used), evicting the least recently used others
    /// while the count or the cost is past its bound. A value that alone costs more than the
    /// budget is still kept, alone.
    mutating func set(_ value: Value, for key: Key, cost: Int = 0) {
        if let node = index[key] {
            self.cost += cost - nodes[node].cost
            nodes[node].value = value
            nodes[node].cost = cost
            touch(node)
        } else {
            let entry = Node(key: key, value: value, cost: cost, older: newest, newer: -1)
            let node: Int
            if let reused = free.popLast() { nodes[reused] = entry; node = reused } else { nodes.append(entry); node = nodes.count - 1 }
            if newest >= 0 { nodes[newest].newer = node }
            newest = node
            if oldest < 0 { oldest = node }
            index[key] = node
            self.cost += cost
        }
        while (index.count > limit || self.cost > budget) && oldest != newest { remove(at: oldest) }
    }

    /// Adds `cost` to `key`'s (when it is there), evicting as ``set(_:for:cost:)`` does.
    mutating func addCost(_ cost: Int, for key: Key) {
        guard let node = index[key] else { return }
        nodes[node].cost += cost
        self.cost += cost
        while self.cost > budget && oldest != newest { remove(at: oldest) }
    }

    mutating func removeValue(for key: Key) {
        if let node = index[key] { remove(at: node) }
    }

    private mutating func touch(_ node: Int) {
        guard node != newest else { return }
        unlink(node)
        nodes[node].older = newest
        nodes[node].newer = -1
        nodes[newest].newer = node
        newest = node
    }

    private mutating func unlink(_ node: Int) {
        let (older, newer) = (nodes[node].older, nodes[node].newer)
        if older >= 0 { nodes[older].newer = newer } else { oldest = newer }
        if newer >= 0 { nodes[newer].older = older } else { newest = older }
    }

    private mutating func remove(at node: Int) {
        unlink(node)
        index[nodes[node].key] = nil
        cost -= nodes[node].cost
        free.append(node)
        if index.isEmpty {
            nodes.removeAll(keepingCapacity: true)
            free.removeAll(keepingCapacity: true)
            (newest, oldest) = (-1, -1)
        }
    }

    /// The keys from the most to the least recently used (for tests and invariant checks).
    var keysByRecency: [Key] {
        var keys: [Key] = []
        var node = newest
        while node >= 0 { keys.append(nodes[node].key); node = nodes[node].older }
        return keys
    }

    /// Traps when the links, the index and the cost disagree (tests call it after each change).
    func checkInvariants() {
        let keys = keysByRecency
        precondition(keys.count == index.count && Set(keys).count == keys.count, "the recency list and the index disagree")
        precondition(keys.allSatisfy { index[$0] != nil }, "a listed key is not indexed")
        precondition(index.values.reduce(0) { $0 + nodes[$1].cost } == cost, "the cost is not the sum of the values' costs")
        precondition(index.count <= limit || index.count == 1, "more values than the limit")
    }
}

extension LRUCache: Sendable where Key: Sendable, Value: Sendable {}
extension LRUCache.Node: Sendable where Key: Sendable, Value: Sendable {}

/// An ``LRUCache`` behind a lock, for values shared by every request (verified tokens).
final class BoundedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let cache: NIOLockedValueBox<LRUCache<Key, Value>>

    init(limit: Int) { cache = NIOLockedValueBox(LRUCache(limit: limit)) }

    subscript(key: Key) -> Value? {
        get { cache.withLockedValue { $0.value(for: key) } }
        set {
            cache.withLockedValue { cache in
                if let newValue { cache.set(newValue, for: key) } else { cache.removeValue(for: key) }
            }
        }
    }
}
