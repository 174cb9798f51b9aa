import CCatalogSupport

/// The id table for integer ids in a narrow span (row ids, indexes: the common case for `Int`
/// ids): slot `id − base` holds the entry, so there is nothing to hash, no tag and no probing,
/// and a slot's id is known without comparing.
///
/// A slot holds an entry index + 1, as ``HashedIDTable``'s do, with the same entries: A's
/// positions (index < `aCount`) and the positions of B's ids that A does not have (index −
/// `aCount`). ``IDTable/forIDs(_:_:hash:workspace:)`` chooses it when the ids span no more slots
/// than a hash table would have, so it takes the same memory or less and gives the same answers.
final class DenseIDTable: IDMatching {
    private let memory: SlotMemory
    /// The smallest id: slot = id − base.
    let base: Int
    /// How many slots the span of the ids takes.
    let width: Int
    let aCount: Int

    /// A table for integer ids from `base` to `base + width − 1`, of which `aCount` are A's.
    init(base: Int, width: Int, aCount: Int, workspace: DiffWorkspace?) {
        memory = SlotMemory(count: width, workspace: workspace)
        (self.base, self.width, self.aCount) = (base, width, aCount)
    }

    /// A table for `a` and `b` when `ID` is `Int` and their ids span fewer than `limit` slots; else nil.
    ///
    /// The span is taken a chunk at a time, so that ids spread over all of `Int` (random or
    /// hashed row ids) give up after the first chunk instead of reading both snapshots.
    static func fitting<ID: Hashable>(_ a: ItemIDs<ID>, _ b: ItemIDs<ID>, within limit: Int,
                                      workspace: DiffWorkspace?) -> DenseIDTable? {
        guard ID.self == Int.self, a.count + b.count > 0 else { return nil }
        var (low, high) = (Int.max, Int.min)
        let isNarrow = [a, b].allSatisfy { ids in
            forEachIntegerSection(ids) { _, section in
                var start = 0
                while start < section.count {
                    let end = min(start + IDTable.spanChunk, section.count)
                    let span = Self.span(of: UnsafeBufferPointer(rebasing: section[start..<end]))
                    (low, high) = (min(low, span.low), max(high, span.high))
                    let (distance, overflow) = high.subtractingReportingOverflow(low)
                    guard !overflow && distance < limit else { return false }
                    start = end
                }
                return true
            }
        }
        guard isNarrow else { return nil }
        return DenseIDTable(base: low, width: high - low + 1, aCount: a.count, workspace: workspace)
    }

    /// Enters A's ids; returns the positions whose id an earlier position already has. Never nil:
    /// nothing is hashed, so nothing gives up.
    @inline(__always)
    func enter<ID: Hashable>(_ a: ItemIDs<ID>) -> [Int]? {
        var duplicates: [Int] = []
        let slots = memory.base
        forEachSlot(a) { p, slot in
            if slots[slot] != 0 { duplicates.append(p) } else { slots[slot] = UInt32(truncatingIfNeeded: p &+ 1) }
        }
        return duplicates
    }

    /// Looks up B's ids among A's entries, reporting each to `results` as
    /// ``IDTable/lookUp(_:in:expectingOrder:into:)`` says, in B's order. Always true; a slot
    /// read costs less than the comparisons that expecting order would make, so
    /// `expectingOrder` changes nothing.
    @inline(__always)
    func lookUp<ID: Hashable, Results: LookUpResults>(_ b: ItemIDs<ID>, in a: ItemIDs<ID>, expectingOrder: Bool = false,
                                                      into results: inout Results) -> Bool {
        let (slots, aCount) = (memory.base, self.aCount)
        forEachSlot(b) { q, slot in
            let entry = Int(slots[slot])
            if entry == 0 {
                slots[slot] = UInt32(truncatingIfNeeded: aCount &+ q &+ 1)
                results.unmatched(q, -1)
            } else if entry <= aCount {
                results.matched(q, entry &- 1)
            } else {
                results.unmatched(q, entry &- 1 &- aCount)
            }
        }
        return true
    }

    /// The A position of `id`, or −1.
    func position<ID: Hashable>(of id: ID, in a: ItemIDs<ID>, _ b: ItemIDs<ID>) -> Int {
        let (slot, overflow) = (id as! Int).subtractingReportingOverflow(base)
        guard !overflow, slot >= 0, slot < width else { return -1 }
        let entry = Int(memory.base[slot])
        return entry >= 1 && entry <= aCount ? entry - 1 : -1
    }

    /// Calls `body(position, slot)` for every id of `ids`, in order, with its slot prefetched
    /// ``IDTable/denseLookahead`` ids ahead (within its section).
    @inline(__always)
    private func forEachSlot<ID: Hashable>(_ ids: ItemIDs<ID>, _ body: (_ position: Int, _ slot: Int) -> Void) {
        let (slots, base) = (memory.base, self.base)
        Self.forEachIntegerSection(ids) { start, ids in
            for i in ids.indices {
                if i &+ IDTable.denseLookahead < ids.count { catalog_prefetch(slots + (ids[i &+ IDTable.denseLookahead] &- base)) }
                body(start &+ i, ids[i] &- base)
            }
            return true
        }
    }

    /// Calls `body(start, ids)` with each section of integer ids (`ID` must be `Int`) and the flat
    /// position of its first id, until `body` returns false; returns whether it never did.
    @inline(__always)
    @discardableResult
    static func forEachIntegerSection<ID: Hashable>(_ ids: ItemIDs<ID>,
                                                    _ body: (_ start: Int, _ ids: UnsafeBufferPointer<Int>) -> Bool) -> Bool {
        ids.forEachSection { start, section in
            section.withMemoryRebound(to: Int.self) { body(start, $0) }
        }
    }

    /// The smallest and largest of `ids` (Int.max and Int.min when there are none), in locals
    /// the compiler can keep in vector registers.
    static func span(of ids: UnsafeBufferPointer<Int>) -> (low: Int, high: Int) {
        // Four running pairs, so that the comparisons do not wait on one another.
        var (l0, l1, l2, l3) = (Int.max, Int.max, Int.max, Int.max)
        var (h0, h1, h2, h3) = (Int.min, Int.min, Int.min, Int.min)
        var i = 0
        while i + 4 <= ids.count {
            (l0, h0) = (min(l0, ids[i]), max(h0, ids[i]))
            (l1, h1) = (min(l1, ids[i + 1]), max(h1, ids[i + 1]))
            (l2, h2) = (min(l2, ids[i + 2]), max(h2, ids[i + 2]))
            (l3, h3) = (min(l3, ids[i + 3]), max(h3, ids[i + 3]))
            i += 4
        }
        while i < ids.count {
            (l0, h0) = (min(l0, ids[i]), max(h0, ids[i]))
            i += 1
        }
        return (min(l0, l1, l2, l3), max(h0, h1, h2, h3))
    }
}
