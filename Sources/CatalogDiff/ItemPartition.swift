/// How the items of one of A's sections fare when B keeps that section: each stays (B has it in
/// the same section), is deleted (B does not have it) or departs (B has it in another section).
/// The item stage of ``StagedDiff`` sorts every surviving section this way.
enum ItemPartition {
    /// Sorts A's items at flat positions `start..<start + count` (B positions in `aToB`, −1 for
    /// none) against B's section at flat positions `targets`:
    /// - `stayTo[0..<stays]`: each staying item's index in B's section, in A's order;
    ///   `stayFrom[0..<stays]`: its index in A's section;
    /// - `stayTo[count - k]` for `k` in `0..<departures`: the index in A's section of the `k`th
    ///   item that departs;
    /// - `stayFrom[count - k]` for `k` in `0..<deletes`: that of the `k`th item deleted.
    /// Both buffers hold at least `count + 1` elements; other slots are left with whatever the
    /// pass wrote there.
    ///
    /// Without a branch on what happens to each item (deleted ones come at random: a branch on
    /// them is mispredicted every time): every slot is written, and only the count of the kind the
    /// item is moves on. A stay's slot from the front is always below the next delete's or
    /// departure's from the back, so no slot that counts is overwritten.
    @inline(__always)
    static func partition(_ aToB: UnsafeBufferPointer<Int32>, start: Int, count: Int, targets: Range<Int>,
                          stayTo: UnsafeMutableBufferPointer<Int32>, stayFrom: UnsafeMutableBufferPointer<Int32>)
        -> (stays: Int, deletes: Int, departures: Int) {
        var (stays, deletes, departures) = (0, 0, 0)
        for i in 0..<count {
            let q = Int(aToB[start &+ i])
            let local = q &- targets.lowerBound  // negative for a deleted item
            stayTo[stays] = Int32(truncatingIfNeeded: local)
            stayTo[count &- departures] = Int32(truncatingIfNeeded: i)
            stayFrom[stays] = Int32(truncatingIfNeeded: i)
            stayFrom[count &- deletes] = Int32(truncatingIfNeeded: i)
            // Sign bits, not comparisons, which the compiler turns back into branches: −1 when
            // 0 ≤ local < count, and when q < 0.
            let (stay, delete) = (((local &- targets.count) & ~local) >> 63, q >> 63)
            stays &-= stay
            deletes &-= delete
            departures &+= 1 &+ stay &+ delete
        }
        return (stays, deletes, departures)
    }
}
