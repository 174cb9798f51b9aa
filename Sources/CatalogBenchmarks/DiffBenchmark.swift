import CatalogDiff
import CBenchmarkSupport
import CatalogModel
import Foundation
import OrderedCollections

/// `catalog-bench diff`: staged changesets between large snapshots, against two baselines
/// measured on the same data in the same run — an `OrderedSet`-based difference (what a careful
/// Swift programmer writes with swift-collections) and the standard library's
/// `difference(from:).inferringMoves()` (skipped at 1M, where it takes minutes).
///
/// Int ids come three ways: as generated, `0..<n` plus the inserted ones — the shape of row ids,
/// which the diff matches through a dense table (see `DenseIDTable`); the same span in no particular
/// order (flat only), so that each id's slot lands anywhere in that table; and spread over all of
/// `Int` by an odd multiplier, which the diff must hash like any other ids.
package struct DiffBenchmark {
    package var sizes: [Int]
    /// Sizes of the catalogue-level rows (``CatalogDiffBenchmark``), which come first: they
    /// measure the call users make.
    package var catalogSizes: [Int]
    package var runs: Int

    package init(sizes: [Int] = [5_000, 100_000, 1_000_000], catalogSizes: [Int] = [10_000, 100_000, 1_000_000], runs: Int = 5) {
        self.sizes = sizes
        self.catalogSizes = catalogSizes
        self.runs = runs
    }

    package func run(log: (String) -> Void = { _ in }) throws -> [BenchmarkResult] {
        var results = try CatalogDiffBenchmark(sizes: catalogSizes, runs: runs).run(log: log)
        for size in sizes {
            // The diff suite's cases: a tenth deleted, a tenth inserted, a fiftieth of that moved.
            let changed = size / 5 >= 1_000 ? size / 10 : size / 5
            let shuffled = size >= 100_000 ? size / 100 : size / 25
            var random = SplitMix64(seed: UInt64(size))
            let (a, b) = Self.edit(count: size, deleting: changed, inserting: changed, moving: shuffled, &random)
            let runs = size >= 1_000_000 ? max(1, self.runs / 2) : self.runs
            results += try measure("Int ids", a, b, runs: runs, log: log)
            let spread = { (id: Int) in id &* -0x61C8_8646_80B5_83EB }
            results += try measure("spread Int ids", a.map(spread), b.map(spread), runs: runs, log: log)
            if size <= 100_000 {
                // The worst order for a diff that looks for ids where the old snapshot has them.
                var shuffle = SplitMix64(seed: UInt64(size) ^ 0x5EED)
                results.append(try flatRow("\(size.abbreviated) spread Int ids, flat, target shuffled",
                                           a.map(spread), b.map(spread).shuffled(using: &shuffle), runs: runs, log: log))
            }
            // Row ids in no particular order (a table whose rows were reordered): still one dense
            // span, but each id's slot lands anywhere in the table.
            var relabel = SplitMix64(seed: UInt64(size) ^ 0xD15C)
            var labels = Array(0..<(size + changed))
            labels.shuffle(using: &relabel)
            results.append(try flatRow("\(size.abbreviated) Int ids in no particular order, flat",
                                       a.map { labels[$0] }, b.map { labels[$0] }, runs: runs, log: log))
            let strings = Self.stringIDs(count: size + changed, &random)
            results += try measure("string ids", a.map { strings[$0] }, b.map { strings[$0] }, runs: runs, log: log)
        }
        return results
    }

    private func measure<ID: Hashable & Sendable>(_ kind: String, _ a: [ID], _ b: [ID], runs: Int,
                                                  log: (String) -> Void) throws -> [BenchmarkResult] {
        let size = a.count
        let label = "\(size.abbreviated) \(kind)"
        log("diff: \(label)")
        let flatA = SnapshotShape(sections: [0], items: [a])
        let flatB = SnapshotShape(sections: [0], items: [b])
        let sectionedA = Self.sectioned(a)
        let sectionedB = Self.sectioned(b)
        var results: [BenchmarkResult] = []
        func row(_ shapes: String, _ from: SnapshotShape<Int, ID>, _ to: SnapshotShape<Int, ID>,
                 against baseline: String, runs: Int, memory: Bool = false, coldMemory: Bool = false,
                 _ baselineBody: () -> Void) throws {
            let name = "\(label), \(shapes)" + (coldMemory ? ", fresh scratch memory" : "")
            results.append(try Self.row(name, from, to, against: baseline, runs: runs, memory: memory,
                                        coldMemory: coldMemory, baselineBody))
        }
        try row("flat", flatA, flatB, against: "OrderedSet difference", runs: runs, memory: true) { _ = Self.orderedSetDifference(a, b) }
        try row("100 sections", sectionedA, sectionedB, against: "OrderedSet difference (flat)", runs: runs, memory: true) {
            _ = Self.orderedSetDifference(a, b)
        }
        // The first diff, or one too large for the shared workspaces, maps its memory afresh.
        try row("flat", flatA, flatB, against: "OrderedSet difference", runs: runs, coldMemory: true) {
            _ = Self.orderedSetDifference(a, b)
        }
        try row("100 sections", sectionedA, sectionedB, against: "OrderedSet difference (flat)", runs: runs, coldMemory: true) {
            _ = Self.orderedSetDifference(a, b)
        }
        try row("flat", flatA, flatB, against: "bare hash pass (floor)", runs: runs) { _ = DiffFloor.hashPass(a, b) }
        if size <= 100_000 {
            // Myers is quadratic in the edit distance: one run at 100k takes seconds to minutes.
            try row("flat", flatA, flatB, against: "stdlib difference + inferringMoves", runs: size > 10_000 ? 1 : runs) {
                _ = b.difference(from: a).inferringMoves()
            }
        }
        return results
    }

    /// One row: the diff from `from` to `to` against `baseline`, alternating, `runs` times each;
    /// with `memory`, also the diff's peak memory, scratch memory included.
    /// Plain rows call the diff as an app does, without a workspace: it borrows one of the
    /// shared workspaces, which the run before the first timed one (the warm-up) has mapped.
    /// With `coldMemory`, every diff gets a new workspace, whose memory the system must map.
    private static func row<ID: Hashable & Sendable>(_ name: String, _ from: SnapshotShape<Int, ID>, _ to: SnapshotShape<Int, ID>,
                                                     against baseline: String, runs: Int, memory: Bool = false,
                                                     coldMemory: Bool = false, _ baselineBody: () -> Void) throws -> BenchmarkResult {
        let measured = try Clock.compare(runs: runs, case: {}, {
            _ = try StagedDiff.changeset(from: from, to: to, workspace: coldMemory ? DiffWorkspace() : nil)
        }, baseline: {}, { baselineBody() })
        let bytes = memory ? try peakBytesPerElement(from.itemCount) {
            _ = try StagedDiff.changeset(from: from, to: to, workspace: DiffWorkspace())
        } : nil
        return BenchmarkResult(suite: "diff", name: name, medianMS: measured.median, baseline: baseline,
                               baselineMedianMS: measured.baselineMedian, items: from.itemCount, bytesPerItem: bytes)
    }

    /// A flat diff of one more shape of Int ids (a target in random order, where every survivor
    /// moves but those on a longest increasing subsequence; ids in no particular order), against
    /// `OrderedSet` on the same data.
    private func flatRow(_ name: String, _ a: [Int], _ b: [Int], runs: Int, log: (String) -> Void) throws -> BenchmarkResult {
        log("diff: \(name)")
        return try Self.row(name, SnapshotShape(sections: [0], items: [a]), SnapshotShape(sections: [0], items: [b]),
                            against: "OrderedSet difference", runs: runs) { _ = Self.orderedSetDifference(a, b) }
    }

    /// The memory `body` maps beyond what the process had resident before — its peak, with the
    /// changeset it returns — per element of a snapshot of `count` ids; nil where the platform
    /// cannot measure it (Linux only: the peak resident size is reset through /proc).
    static func peakBytesPerElement(_ count: Int, _ body: () throws -> Void) rethrows -> Double? {
        let before = catalog_begin_peak_measurement()
        guard before > 0 else { return nil }
        try body()
        let peak = catalog_peak_resident_bytes()
        return peak >= before ? Double(peak - before) / Double(count) : nil
    }

    /// Deletes, inserts and moves, as the field notes' cases: `b` is `a` with `deleting` ids
    /// removed, `inserting` new ids put at random places and `moving` ids moved elsewhere.
    static func edit(count: Int, deleting: Int, inserting: Int, moving: Int, _ random: inout SplitMix64) -> ([Int], [Int]) {
        let a = Array(0..<count)
        var order = a
        order.shuffle(using: &random)
        let deleted = Set(order.prefix(deleting))
        let moved = Set(order.dropFirst(deleting).prefix(moving))
        // Survivors keep their place (key = old index); moved and inserted ids get a random key
        // between two survivors. Sorting by key is b, in O(n log n) rather than O(n) per insert.
        var keyed: [(key: Double, id: Int)] = []
        keyed.reserveCapacity(count - deleting + inserting)
        for id in a where !deleted.contains(id) {
            let key = moved.contains(id) ? Double(random.next() % UInt64(count)) + 0.5 : Double(id)
            keyed.append((key, id))
        }
        for id in count..<count + inserting {
            keyed.append((Double(random.next() % UInt64(count)) + 0.5, id))
        }
        keyed.sort { $0.key < $1.key || ($0.key == $1.key && $0.id < $1.id) }
        return (a, keyed.map(\.id))
    }

    /// 36-character ids in the shape of UUIDs, distinct and deterministic.
    static func stringIDs(count: Int, _ random: inout SplitMix64) -> [String] {
        let hex = Array("0123456789abcdef".utf8)
        return (0..<count).map { n in
            var bytes: [UInt8] = []
            bytes.reserveCapacity(36)
            let high = random.next()
            let low = UInt64(n) << 32 | (random.next() & 0xFFFF_FFFF)
            for (index, word) in [(0, high), (16, low)] {
                for nibble in 0..<16 {
                    if [8, 12, 16, 20].contains(index + nibble) { bytes.append(UInt8(ascii: "-")) }
                    bytes.append(hex[Int(word >> (60 - 4 * UInt64(nibble)) & 0xF)])
                }
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// The ids split over 100 sections of equal size.
    static func sectioned<ID>(_ ids: [ID]) -> SnapshotShape<Int, ID> {
        let per = max(1, (ids.count + 99) / 100)
        let chunks = stride(from: 0, to: ids.count, by: per).map { Array(ids[$0..<min($0 + per, ids.count)]) }
        return SnapshotShape(sections: Array(chunks.indices), items: chunks)
    }

    /// The baseline: deletions, insertions and moves (for survivors whose relative order changed,
    /// found with the same longest-increasing-subsequence rule) computed through `OrderedSet`.
    static func orderedSetDifference<ID: Hashable>(_ a: [ID], _ b: [ID]) -> (deleted: [Int], inserted: [Int], moved: Int) {
        let setA = OrderedSet(a)
        let setB = OrderedSet(b)
        let deleted = a.indices.filter { !setB.contains(a[$0]) }
        let inserted = b.indices.filter { !setA.contains(b[$0]) }
        var oldPositions: [Int] = []
        oldPositions.reserveCapacity(b.count)
        for id in b { if let index = setA.firstIndex(of: id) { oldPositions.append(index) } }
        var tails: [Int] = []
        for value in oldPositions {
            var low = 0, high = tails.count
            while low < high { let mid = (low + high) / 2; if tails[mid] < value { low = mid + 1 } else { high = mid } }
            if low == tails.count { tails.append(value) } else { tails[low] = value }
        }
        return (deleted, inserted, oldPositions.count - tails.count)
    }
}
