/// Marks the elements of a longest strictly increasing subsequence of `values`.
///
/// The diff keeps the items on such a subsequence where they are and moves the rest, which is the
/// fewest moves any changeset can have: every element off the subsequence must move. O(n log n).
func longestIncreasingSubsequence(_ values: [Int]) -> [Bool] {
    let n = values.count
    guard n > 0 else { return [] }
    // tails[k]: index of the smallest tail of an increasing run of length k + 1.
    var tails: [Int] = []
    tails.reserveCapacity(n)
    var previous = [Int](repeating: -1, count: n)
    for i in 0..<n {
        let value = values[i]
        var low = 0
        var high = tails.count
        while low < high {
            let mid = (low + high) / 2
            if values[tails[mid]] < value { low = mid + 1 } else { high = mid }
        }
        if low > 0 { previous[i] = tails[low - 1] }
        if low == tails.count { tails.append(i) } else { tails[low] = i }
    }
    var kept = [Bool](repeating: false, count: n)
    var index = tails.last!
    while index >= 0 {
        kept[index] = true
        index = previous[index]
    }
    return kept
}
