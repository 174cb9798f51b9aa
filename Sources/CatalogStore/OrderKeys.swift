/// Item positions in the database are order keys with gaps (migration 0005), not indices: an
/// item's index is its rank by key within its section. A move writes one row — the moved item
/// takes a key between its new neighbours' — instead of shifting every item after it.
///
/// Fresh keys are ``spacing`` apart; a gap halves with each item placed into it, so about 32
/// items fit between two neighbours before the section needs fresh keys (``plan(_:)`` gives them).
enum OrderKeys {
    /// The distance between fresh keys: 2^32, so sections of millions of items stay far from
    /// `Int64.max`, and a gap takes about 32 items.
    static let spacing: Int64 = 1 << 32

    /// The fresh key of the item at `index`: (index + 1) × ``spacing``, leaving room before the
    /// first item as after the last.
    static func key(atIndex index: Int) -> Int64 {
        Int64(index + 1) * spacing
    }

    /// `count` increasing keys strictly between `lower` and `upper` — from 0 when `lower` is
    /// nil, with no limit but `Int64.max` when `upper` is nil — spread evenly; nil when they do
    /// not fit.
    static func keys(count: Int, after lower: Int64?, before upper: Int64?) -> [Int64]? {
        guard count > 0 else { return [] }
        let low = lower ?? 0
        let step: Int64
        if let upper {
            guard upper > low, upper - low > Int64(count) else { return nil }
            step = (upper - low) / Int64(count + 1)
        } else {
            guard low <= Int64.max - spacing * Int64(count) else { return nil }
            step = spacing
        }
        return (1...count).map { low + step * Int64($0) }
    }

    /// The keys a section's items should have, in their new order, given the key each one has now
    /// in this section (nil: it was elsewhere or is new). Items whose keys are already in
    /// order — the longest increasing run of them — keep their keys; the others get keys between
    /// their kept neighbours. When some gap has no room left, every item gets a fresh key.
    ///
    /// The result is strictly increasing; the rows to write are those whose key changed.
    static func plan(_ current: [Int64?]) -> [Int64] {
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
    static func longestIncreasingRun(_ keys: [Int64?]) -> [Int] {
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
