import CCatalogSupport

// The dense table: integer ids that fill a narrow span (row ids) are their own slot, `id − base`,
// with no hashing and no probing. ``IDTable/enter(_:)``, ``IDTable/lookUp(_:in:expectingOrder:into:)``
// and ``IDTable/position(of:in:_:)`` hand a dense table's work to these.
extension IDTable {
    /// Enters A's ids; returns the positions whose id an earlier position already has.
    @inline(__always)
    func enterDense<ID: Hashable>(_ a: ItemIDs<ID>, base: Int) -> [Int] {
        var duplicates: [Int] = []
        let slots = storage
        forEachDenseSlot(a, base: base) { p, slot in
            if slots[slot] != 0 { duplicates.append(p) } else { slots[slot] = UInt32(truncatingIfNeeded: p &+ 1) }
        }
        return duplicates
    }

    /// Looks up B's ids among A's entries, reporting each to `results` as
    /// ``IDTable/lookUp(_:in:expectingOrder:into:)`` does.
    @inline(__always)
    func lookUpDense<ID: Hashable, Results: LookUpResults>(_ b: ItemIDs<ID>, base: Int, into results: inout Results) {
        let (slots, aCount) = (storage, self.aCount)
        forEachDenseSlot(b, base: base) { q, slot in
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
    }

    /// The A position of `id`, or −1.
    func densePosition(of id: Int, base: Int) -> Int {
        let (slot, overflow) = id.subtractingReportingOverflow(base)
        guard !overflow, slot >= 0, slot <= mask else { return -1 }
        let entry = Int(storage[slot])
        return entry >= 1 && entry <= aCount ? entry - 1 : -1
    }

    /// Calls `body(position, slot)` for every id of `ids` in a dense table, in order, with its
    /// slot prefetched ``denseLookahead`` ids ahead (within its section).
    @inline(__always)
    func forEachDenseSlot<ID: Hashable>(_ ids: ItemIDs<ID>, base: Int, _ body: (_ position: Int, _ slot: Int) -> Void) {
        let slots = storage
        Self.forEachIntegerSection(ids) { start, ids in
            for i in ids.indices {
                if i &+ Self.denseLookahead < ids.count { catalog_prefetch(slots + (ids[i &+ Self.denseLookahead] &- base)) }
                body(start &+ i, ids[i] &- base)
            }
            return true
        }
    }
}
