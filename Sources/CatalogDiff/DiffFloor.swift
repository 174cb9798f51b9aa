/// The floor the diff's speed is measured against (the diff benchmark's "bare hash pass"): one pass that hashes
/// every id of both snapshots into the diff's hash table (A's ids entered, B's looked up and the
/// new ones entered) and does nothing else; `catalog-bench diff` reports the ratio to this. A
/// hashing diff cannot be faster; integer ids in a narrow span skip hashing (a dense table), and
/// their diff can be.
package enum DiffFloor {
    /// Hashes `a` and `b` into one table; returns how many ids of `b` are in `a` (so that the
    /// work cannot be optimised away).
    @_specialize(where ID == Int)
    @_specialize(where ID == String)
    package static func hashPass<ID: Hashable>(_ a: [ID], _ b: [ID]) -> Int {
        let (a, b) = (ItemIDs([a]), ItemIDs([b]))
        let table = HashedIDTable(aCount: a.count, bCount: b.count, hash: IDHash.fastest(for: ID.self))
        var found = Found()
        guard table.enter(a) != nil, table.lookUp(b, in: a, into: &found) else { return -1 }
        return found.count
    }

    /// Counts the ids found.
    private struct Found: LookUpResults {
        var count = 0
        mutating func matched(_ q: Int, _ p: Int) { count &+= 1 }
        mutating func unmatched(_ q: Int, _ earlier: Int) {}
    }
}
