@testable import CatalogServer
import CatalogModel
import Testing

/// The caches' eviction: least recently used first, one at a time, checked against a slow
/// reference (an array in recency order) over random operations.
@Suite struct LRUCacheTests {
    struct Reference {
        var entries: [(key: Int, value: Int, cost: Int)] = []   // most recent first
        let limit: Int
        let budget: Int

        var cost: Int { entries.reduce(0) { $0 + $1.cost } }

        mutating func value(for key: Int) -> Int? {
            guard let index = entries.firstIndex(where: { $0.key == key }) else { return nil }
            let entry = entries.remove(at: index)
            entries.insert(entry, at: 0)
            return entry.value
        }

        mutating func set(_ value: Int, for key: Int, cost: Int) {
            entries.removeAll { $0.key == key }
            entries.insert((key, value, cost), at: 0)
            while (entries.count > limit || self.cost > budget) && entries.count > 1 { entries.removeLast() }
        }
    }

    @Test(arguments: 0..<20)
    func evictsTheLeastRecentlyUsedOneAtATime(seed: Int) {
        var random = SplitMix64(seed: UInt64(seed))
        let (limit, budget) = (Int.random(in: 1...8, using: &random), Int.random(in: 5...60, using: &random))
        var cache = LRUCache<Int, Int>(limit: limit, budget: budget)
        var reference = Reference(limit: limit, budget: budget)
        for step in 0..<400 {
            let key = Int.random(in: 0..<12, using: &random)
            switch Int.random(in: 0..<3, using: &random) {
            case 0:
                #expect(cache.value(for: key) == reference.value(for: key), "step \(step)")
            case 1:
                let cost = Int.random(in: 0...20, using: &random)
                cache.set(step, for: key, cost: cost)
                reference.set(step, for: key, cost: cost)
            default:
                cache.removeValue(for: key)
                reference.entries.removeAll { $0.key == key }
            }
            cache.checkInvariants()
            #expect(cache.keysByRecency == reference.entries.map(\.key), "step \(step)")
            #expect(cache.cost == reference.cost)
        }
    }

    /// A client asking for one new key after another (a loop of `width=` values) no longer
    /// empties the cache: an entry others keep asking for stays.
    @Test func aLoopOfNewKeysKeepsTheHotEntry() async throws {
        let cache = RevisionCache<Int>(limit: 8, budget: .max, cost: { _ in 1 })
        let made = Counter()
        _ = try await cache.value(for: "hot", revision: 1) { made.add(); return 1 }
        for n in 0..<1_000 {
            _ = try await cache.value(for: "width=\(n)", revision: 1) { n }
            _ = try await cache.value(for: "hot", revision: 1) { made.add(); return 1 }
        }
        #expect(made.value == 1)
        #expect(cache.count == 8)
    }

    final class Counter: @unchecked Sendable {
        private var count = 0
        func add() { count += 1 }
        var value: Int { count }
    }
}
