import CatalogModel
import Testing
@testable import CatalogDiff

/// The diff's branch-free partition of a section's items against a plain one with a branch per item.
@Suite struct ItemPartitionTests {
    /// What the partition must say, item by item.
    static func plain(_ aToB: [Int32], start: Int, count: Int, targets: Range<Int>)
        -> (stayTo: [Int32], stayFrom: [Int32], departing: [Int32], deleted: [Int32]) {
        var result: (stayTo: [Int32], stayFrom: [Int32], departing: [Int32], deleted: [Int32]) = ([], [], [], [])
        for i in 0..<count {
            let q = Int(aToB[start + i])
            if q < 0 {
                result.deleted.append(Int32(i))
            } else if targets.contains(q) {
                result.stayTo.append(Int32(q - targets.lowerBound))
                result.stayFrom.append(Int32(i))
            } else {
                result.departing.append(Int32(i))
            }
        }
        return result
    }

    @Test func agreesWithThePlainPartitionOnRandomSections() {
        var random = SplitMix64(seed: 31)
        for _ in 0..<2_000 {
            let count = Int(random.next() % 40)
            let start = Int(random.next() % 5)
            let bCount = 200
            let targets = Int(random.next() % 100)..<(Int(random.next() % 100) + 100)
            // Each item deleted, staying, or leaving for a position outside `targets`.
            let aToB: [Int32] = (0..<(start + count)).map { _ in
                switch random.next() % 3 {
                case 0: -1
                case 1: Int32(targets.lowerBound + Int(random.next() % UInt64(targets.count)))
                default: Int32(random.next() % 2 == 0 ? Int(random.next() % UInt64(max(1, targets.lowerBound))) : targets.upperBound + Int(random.next() % UInt64(bCount - targets.upperBound + 1)))
                }
            }
            var stayTo = [Int32](repeating: 99, count: count + 1)
            var stayFrom = [Int32](repeating: 99, count: count + 1)
            let (stays, deletes, departures) = aToB.withUnsafeBufferPointer { aToB in
                stayTo.withUnsafeMutableBufferPointer { stayTo in
                    stayFrom.withUnsafeMutableBufferPointer { stayFrom in
                        ItemPartition.partition(aToB, start: start, count: count, targets: targets, stayTo: stayTo, stayFrom: stayFrom)
                    }
                }
            }
            let expected = Self.plain(aToB, start: start, count: count, targets: targets)
            #expect(Array(stayTo[..<stays]) == expected.stayTo)
            #expect(Array(stayFrom[..<stays]) == expected.stayFrom)
            #expect((0..<departures).map { stayTo[count - $0] } == expected.departing)
            #expect((0..<deletes).map { stayFrom[count - $0] } == expected.deleted)
        }
    }
}
