/// The floor the diff's speed is measured against: one pass that hashes every id of both
/// snapshots into one of the diff's tables and does nothing else. No diff can be faster than
/// looking at every id once; `catalog bench diff` reports the ratio to this.
@_spi(Benchmarks)
public enum DiffFloor {
    /// Hashes `a` and `b` into one table; returns how many ids appear twice (so that the work
    /// cannot be optimised away).
    @_specialize(where ID == Int)
    @_specialize(where ID == String)
    public static func hashPass<ID: Hashable>(_ a: [ID], _ b: [ID]) -> Int {
        let ids = a + b
        var repeated: [Int] = []
        _ = ids.withUnsafeBufferPointer { IDTable($0, hash: IDHash.choose(for: ids), duplicates: &repeated) }
        return repeated.count
    }
}
