/// What the diff keeps of a lookup of B's item ids in A's (``IDMatching/lookUp(_:in:expectingOrder:into:)``):
/// each A position's B position and the reverse, how many ids matched, and the positions where B
/// repeats an id.
struct MatchRecord: LookUpResults {
    /// The B position of each A position and the reverse, −1 where none: filled in by the lookup.
    /// Positions fit in 32 bits: the diff refuses snapshots of 2³¹ items or more before it looks up.
    let aToB: UnsafeMutableBufferPointer<Int32>
    let bToA: UnsafeMutableBufferPointer<Int32>
    /// How many ids A and B share.
    private(set) var count = 0
    /// B positions found at an A position that had been matched already, with that A position.
    private var repeatsOfA: [(q: Int, p: Int)] = []
    /// B positions of ids A does not have that an earlier B position has too.
    private var repeatsOfNew: [Int] = []

    init(aToB: UnsafeMutableBufferPointer<Int32>, bToA: UnsafeMutableBufferPointer<Int32>) {
        (self.aToB, self.bToA) = (aToB, bToA)
    }

    @inline(__always)
    mutating func matched(_ q: Int, _ p: Int) {
        if !matchedFirst(q, p) { repeatsOfA.append((q, p)) }
    }

    @inline(__always)
    mutating func matchedFirst(_ q: Int, _ p: Int) -> Bool {
        guard aToB[p] < 0 else { return false }
        aToB[p] = Int32(truncatingIfNeeded: q)
        bToA[q] = Int32(truncatingIfNeeded: p)
        count &+= 1
        return true
    }

    @inline(__always)
    mutating func unmatched(_ q: Int, _ earlier: Int) {
        if earlier >= 0 { repeatsOfNew.append(q) }
    }

    /// Every B position whose id an earlier B position has, in order. Matches need not arrive in
    /// B's order, so the first occurrence of an id takes over its A position here (in `aToB`; the
    /// diff stops at the first repeat and reads no more of the record).
    mutating func repeatedPositions() -> [Int] {
        guard !repeatsOfA.isEmpty else { return repeatsOfNew }
        var repeated = repeatsOfNew
        for (q, p) in repeatsOfA {
            let first = Int(aToB[p])
            if q < first { aToB[p] = Int32(truncatingIfNeeded: q) }
            repeated.append(max(q, first))
        }
        return repeated.sorted()
    }
}
