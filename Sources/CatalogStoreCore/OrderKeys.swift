/// Item positions in the database are order keys with gaps (migration 0005), not indices: an
/// item's index is its rank by key within its section. A move writes one row — the moved item
/// takes a key between its new neighbours' — instead of shifting every item after it.
///
/// Fresh keys are ``spacing`` apart and start at ``origin``, the middle of the positive keys, so
/// a section has as much room before its first item as after its last: an item placed first or
/// last takes the key one spacing beyond its neighbour, and about 2^30 items can be put at
/// either end before any renumbering. Between two neighbours a gap halves with each item placed
/// into it, so about 32 items fit before the section needs fresh keys (``plan(_:)`` gives them).
package enum OrderKeys {
    /// The distance between fresh keys: 2^32, so a gap takes about 32 items and sections of
    /// millions of items stay far from the ends of the key range.
    package static let spacing: Int64 = 1 << 32

    /// The first item's fresh key: 2^62. (Sections keyed before this origin existed — by
    /// migration 0005, from `spacing` up — have little room before their first item; their first
    /// renumbering moves them here.)
    package static let origin: Int64 = 1 << 62

    /// The fresh key of the item at `index` (sections of up to 2^30 items).
    package static func key(atIndex index: Int) -> Int64 {
        origin + Int64(index) * spacing
    }

    /// `count` increasing keys strictly between `lower` and `upper` (keys are positive; the
    /// database refuses a negative position); nil when they do not fit.
    ///
    /// With both neighbours the keys spread evenly between them. With one, they continue from it
    /// `spacing` apart, away from it (before the first item: spread evenly down to 0 once there is
    /// no longer room for full steps). With neither, they are fresh keys.
    package static func keys(count: Int, after lower: Int64?, before upper: Int64?) -> [Int64]? {
        guard count > 0 else { return [] }
        let (span, overflow) = spacing.multipliedReportingOverflow(by: Int64(count))
        guard !overflow else { return nil }
        switch (lower, upper) {
        case (nil, nil):
            return (0..<count).map(key(atIndex:))
        case (let lower?, nil):
            guard lower <= Int64.max - span else { return nil }
            return (1...count).map { lower + spacing * Int64($0) }
        case (nil, let upper?) where upper > span:
            return (1...count).map { upper - spacing * Int64(count + 1 - $0) }
        case (let lower, let upper?):
            let low = lower ?? 0
            guard upper > low, upper - low > Int64(count) else { return nil }
            let step = (upper - low) / Int64(count + 1)
            return (1...count).map { low + step * Int64($0) }
        }
    }

    /// The keys a section's items should have, in their new order, given the key each one has now
    /// in this section (nil: it was elsewhere or is new). Items whose keys are already in
    /// order — the longest increasing run of them — keep their keys; the others get keys between
    /// their kept neighbours. When some gap has no room left, every item gets a fresh key.
    ///
    /// The result is strictly increasing; the rows to write are those whose key changed.
    package static func plan(_ current: [Int64?]) -> [Int64] {
        let kept = longestIncreasingRun(current)
        var result = [Int64](repeating: 0, count: current.count)
        var start = 0
        var lower: Int64?
        for end in kept + [current.count] {
            let upper = end < current.count ? current[end]! : nil
            guard let keys = keys(count: end - start, after: lower, before: upper) else {
                return (0..<current.count).map(key(atIndex:))
            }
            result.replaceSubrange(start..<end, with: keys)
            if end < current.count {
                result[end] = upper!
                lower = upper
            }
            start = end + 1
        }
        return result
    }

    /// The indices of a longest strictly increasing subsequence of the non-nil keys, ascending
    /// (patience sorting: O(n log n)).
    package static func longestIncreasingRun(_ keys: [Int64?]) -> [Int] {
        // tails[k]: index of the smallest key ending an increasing run of length k + 1.
        var tails: [Int] = []
        var previous = [Int](repeating: -1, count: keys.count)
        for (index, key) in keys.enumerated() {
            guard let key else { continue }
            var low = 0, high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if keys[tails[middle]]! < key { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var run: [Int] = []
        var index = tails.last ?? -1
        while index >= 0 {
            run.append(index)
            index = previous[index]
        }
        return run.reversed()
    }
}
