/// Finds a longest strictly increasing subsequence of a list of positions.
///
/// The diff keeps the items on such a subsequence where they are and moves the rest, which is the
/// fewest moves any changeset can have: every element off the subsequence must move. Patience
/// sorting, O(n log n), with a shortcut for the common case of a diff: most values extend the
/// longest run (or replace its last element), which needs no binary search. The storage is
/// reused from one call to the next (the diff calls it once per section), and the values' own
/// buffer holds the tails' values: each value is read before its slot can be overwritten.
struct LongestIncreasingSubsequence {
    /// After ``find(in:)``: the indices of the elements off the subsequence found, ascending — the
    /// ones a diff moves, usually few. (A mark for every element, scanned for the few unmarked
    /// ones, cost the diff two passes over every survivor.)
    private(set) var off: [Int32] = []
    /// `tailIndices[k]`: the index of the smallest last value of an increasing run of length
    /// k + 1 so far (the value itself is kept in `values[k]`).
    private var tailIndices: [Int32] = []
    /// The index before each element on the best run that ends with it, or −1.
    private var previous: [Int32] = []

    /// The bytes of its buffers (reused by the next search).
    var retainedBytes: Int {
        (off.capacity + tailIndices.capacity + previous.capacity) * MemoryLayout<Int32>.stride
    }

    /// Finds a longest strictly increasing subsequence of `values`; lists the elements off it in
    /// ``off``. `values` is used as scratch space: its contents are undefined afterwards.
    mutating func find(in values: UnsafeMutableBufferPointer<Int32>) {
        let n = values.count
        precondition(n <= Int(Int32.max), "positions are 32-bit")
        off.removeAll(keepingCapacity: true)
        guard n > 0 else { return }
        // Exact-sized scratch space, written through pointers: appending element by element
        // (a uniqueness and capacity check each) cost more than the search itself.
        if tailIndices.count < n {
            tailIndices = [Int32](repeating: 0, count: n)
            previous = tailIndices
        }
        tailIndices.withUnsafeMutableBufferPointer { tailIndices in
            previous.withUnsafeMutableBufferPointer { previous in
                Self.find(values, tailIndices, previous, off: &off)
            }
        }
    }

    private static func find(_ values: UnsafeMutableBufferPointer<Int32>, _ tailIndices: UnsafeMutableBufferPointer<Int32>,
                             _ previous: UnsafeMutableBufferPointer<Int32>, off: inout [Int32]) {
        // values[0..<count] hold the tails' values from here on; count ≤ i whenever values[i] is read.
        let tailValues = values
        var count = 0  // of tails
        // The last tail's value and index, kept in registers: most values extend the longest run,
        // and reading the last tail back from memory made each value wait for the store before.
        var (last, lastIndex): (Int32, Int32) = (0, -1)
        for i in values.indices {
            let value = values[i]
            let index = Int32(truncatingIfNeeded: i)  // `find(in:)` is given fewer than 2³¹ values
            if count == 0 || last < value {
                previous[i] = lastIndex
                tailValues[count] = value
                tailIndices[count] = index
                count &+= 1
                (last, lastIndex) = (value, index)
                continue
            }
            var length: Int  // the run this value ends has length + 1, below `count`
            if count == 1 || tailValues[count &- 2] < value {
                length = count &- 1
                (last, lastIndex) = (value, index)
            } else {
                var high = count &- 2  // tailValues[count - 2] >= value
                length = 0
                while length < high {
                    let mid = (length &+ high) / 2
                    if tailValues[mid] < value { length = mid &+ 1 } else { high = mid }
                }
            }
            previous[i] = length > 0 ? tailIndices[length &- 1] : -1
            tailValues[length] = value
            tailIndices[length] = index
        }
        // Back along the run found, from its last element: the elements between two of its
        // elements (and after its last, before its first) are off it. Gathered last to first.
        var (index, above) = (Int(tailIndices[count - 1]), values.count)
        while true {
            for k in stride(from: above &- 1, to: index, by: -1) { off.append(Int32(truncatingIfNeeded: k)) }
            guard index >= 0 else { break }
            // Elements whose predecessor on the run is the element before them (most, in a
            // diff) are walked by counting down, a branch the processor predicts, instead of
            // by following each link: that waited for every load in turn.
            while index > 0 && previous[index] == Int32(truncatingIfNeeded: index &- 1) { index &-= 1 }
            (index, above) = (Int(previous[index]), index)
        }
        off.reverse()
    }
}

/// Marks the elements of a longest strictly increasing subsequence of `values`.
package func longestIncreasingSubsequence(_ values: [Int]) -> [Bool] {
    var finder = LongestIncreasingSubsequence()
    var scratch = values.map { Int32($0) }
    scratch.withUnsafeMutableBufferPointer { finder.find(in: $0) }
    var kept = [Bool](repeating: true, count: values.count)
    for index in finder.off { kept[Int(index)] = false }
    return kept
}
