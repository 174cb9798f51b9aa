extension HashedIDTable {
    /// B indices that the ordered lookup (``lookUpExpectingOrder(_:in:into:)``) probes for later,
    /// in room for ``capacity`` of them that the lookup provides (a workspace's scratch memory),
    /// written through a pointer: an array's append is a call, and a call anywhere in
    /// ``walkInOrder`` made it keep its running values in memory. The lookup probes for them
    /// when the room is nearly full, as it does before probing for any later id.
    struct DeferredIndices {
        /// Enough for the ids of many runs between flushes (89 on average at 100k spread ids).
        static let capacity = 4_096
        let base: UnsafeMutablePointer<Int32>
        private(set) var count = 0

        /// Room for ``capacity`` indices at `base`.
        init(_ base: UnsafeMutablePointer<Int32>) { self.base = base }

        var isEmpty: Bool { count == 0 }
        /// Whether the walk may have no room left: it stops at a full room, and the lookup
        /// appends up to ``IDTable/arrivalsAhead`` at a time.
        var isNearlyFull: Bool { count > Self.capacity &- IDTable.arrivalsAhead &- 1 }
        var isFull: Bool { count == Self.capacity }

        @inline(__always)
        mutating func append(_ index: Int) {
            assert(count < Self.capacity, "no room for another deferred id")
            base[count] = Int32(truncatingIfNeeded: index)
            count &+= 1
        }

        mutating func removeAll() { count = 0 }

        /// The indices, in order of appending.
        var indices: LazyMapCollection<UnsafeBufferPointer<Int32>, Int> {
            UnsafeBufferPointer(start: base, count: count).lazy.map { Int($0) }
        }
    }
}
