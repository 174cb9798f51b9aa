import CBenchmarkSupport
import CatalogLayout
import CatalogModel
import Foundation

/// `catalog-bench layout`: preparing flow, waterfall and shelf layouts of 100k items, then 10k
/// viewport-sized rect queries and 10k hit tests, each against a baseline measured in the same
/// run — a bare pass writing the frames into a preallocated array (the floor) for preparing,
/// and a scan of every element's cached attributes (what hand-written `UICollectionViewLayout`
/// subclasses do in `layoutAttributesForElements(in:)`) for queries and hit tests.
package struct LayoutBenchmark {
    package var items: Int
    package var runs: Int
    package var queries: Int
    /// Brute-force scans are slow (a full pass each): this many of the queries are also scanned.
    package var bruteForceQueries: Int
    /// An iPhone-sized viewport.
    package var viewport = Size(width: 390, height: 844)

    package init(items: Int = 100_000, runs: Int = 7, queries: Int = 10_000, bruteForceQueries: Int = 1_000) {
        self.items = items
        self.runs = runs
        self.queries = queries
        self.bruteForceQueries = bruteForceQueries
    }

    package func run(log: (String) -> Void = { _ in }) throws -> [BenchmarkResult] {
        var results: [BenchmarkResult] = []
        let flow = LayoutConfiguration(style: .flow, itemSize: Size(width: 110, height: 150),
                                       sectionInset: Insets(top: 10, left: 10, bottom: 10, right: 10), headerHeight: 40, pinHeaders: true)
        let waterfall = LayoutConfiguration(style: .waterfall, sectionInset: Insets(top: 8, left: 8, bottom: 8, right: 8),
                                            headerHeight: 40, columns: 2)
        let shelf = LayoutConfiguration(style: .shelf, itemSize: Size(width: 80, height: 120),
                                        sectionInset: Insets(top: 12, left: 12, bottom: 12, right: 12), headerHeight: 32)
        // Video cards of five natural sizes in 100 sections; books without natural sizes four to a
        // shelf, as in the sample bookshelf.
        let videos = LayoutInput(Catalog.generated(name: "videos", items: items, sections: 100, kind: .videos, seed: 1))
        var shelves = Array(repeating: 4, count: items / 4)
        if items % 4 > 0 { shelves.append(items % 4) }
        let books = LayoutInput(itemCounts: shelves, kind: .book)
        for (name, config, input) in [("flow", flow, videos), ("waterfall", waterfall, videos), ("shelf", shelf, books)] {
            log("layout: \(name)")
            results += try measure(name, config, input)
        }
        return results
    }

    private func measure(_ name: String, _ config: LayoutConfiguration, _ input: LayoutInput) throws -> [BenchmarkResult] {
        let label = "\(name) \(items.abbreviated)"
        let count = input.itemCount
        let viewport = self.viewport

        // Prepare, against writing the same number of frames into an array allocated beforehand.
        let prepared = try Clock.compare(
            runs: runs,
            case: {}, { blackHole(try Layout(input, configuration: config, viewportSize: viewport).numberOfItems) },
            baseline: { FrameStorage(count: count) }, { storage in
                Self.writeFloorFrames(&storage.frames, width: viewport.width)
                blackHole(storage.frames.count)
            })
        // Preparing again (new data, an invalidation) into the storage of the previous prepare.
        let again = try Clock.compare(
            runs: runs,
            case: { LayoutBox(try Layout(input, configuration: config, viewportSize: viewport)) }, { box in
                try box.layout.prepare(input)
                blackHole(box.layout.numberOfItems)
            },
            baseline: { FrameStorage(count: count) }, { storage in
                Self.writeFloorFrames(&storage.frames, width: viewport.width)
                blackHole(storage.frames.count)
            })
        // What the prepared layout keeps alive, per item.
        let before = catalog_allocated_bytes()
        var layout = try Layout(input, configuration: config, viewportSize: viewport)
        let after = catalog_allocated_bytes()
        let bytesPerItem = after >= before && before > 0 ? Double(after - before) / Double(count) : nil

        var result = [
            BenchmarkResult(suite: "layout", name: "\(label): prepare (new layout)", medianMS: prepared.median,
                            baseline: "bare frame pass (floor)", baselineMedianMS: prepared.baselineMedian,
                            items: count, bytesPerItem: bytesPerItem),
            BenchmarkResult(suite: "layout", name: "\(label): prepare again (storage reused)", medianMS: again.median,
                            baseline: "bare frame pass (floor)", baselineMedianMS: again.baselineMedian, items: count),
        ]

        // Queries at random scroll positions, each timed alone.
        var random = SplitMix64(seed: 99)
        let maxY = max(0, layout.contentSize.height - viewport.height)
        let rects = (0..<queries).map { _ in
            Rect(origin: Point(x: 0, y: Double.random(in: 0...maxY, using: &random)), size: viewport)
        }
        let points = (0..<queries).map { _ in
            Point(x: Double.random(in: 0..<viewport.width, using: &random),
                  y: Double.random(in: 0..<layout.contentSize.height, using: &random))
        }
        let all = layout.allElements
        var found = 0
        let queryTimes = rects.map { rect in
            layout.contentOffset = rect.origin   // pinned headers follow the scroll position
            return Clock.elapsed { found &+= layout.elements(in: rect).count }
        }
        let scanTimes = rects.prefix(bruteForceQueries).map { rect in
            Clock.elapsed { found &+= all.filter { $0.frame.intersects(rect) }.count }
        }
        let hitTimes = points.map { point in Clock.elapsed { found &+= layout.indexPath(at: point)?.item ?? 0 } }
        let cells = all.filter { $0.kind == .cell }
        let hitScanTimes = points.prefix(bruteForceQueries).map { point in
            Clock.elapsed { found &+= cells.last { $0.visibleFrame.contains(point) }?.indexPath.item ?? 0 }
        }
        blackHole(found)
        result.append(BenchmarkResult(suite: "layout", name: "\(label): rect query", medianMS: Clock.median(queryTimes),
                                      baseline: "scan of all attributes", baselineMedianMS: Clock.median(scanTimes), items: 1))
        result.append(BenchmarkResult(suite: "layout", name: "\(label): hit test", medianMS: Clock.median(hitTimes),
                                      baseline: "scan of all cells", baselineMedianMS: Clock.median(hitScanTimes), items: 1))
        return result
    }

    /// The floor: frames of a plain grid, written into storage that already exists.
    @inline(never)
    static func writeFloorFrames(_ frames: inout [Rect], width: Double) {
        let columns = 3, size = 110.0, spacing = 10.0
        frames.withUnsafeMutableBufferPointer { buffer in
            for i in buffer.indices {
                let column = i % columns, line = i / columns
                buffer[i] = Rect(x: Double(column) * (size + spacing), y: Double(line) * (size + spacing),
                                 width: size, height: size)
            }
        }
    }
}

/// Frames allocated (and touched) before the floor's timed pass, written in place.
final class FrameStorage {
    var frames: [Rect]

    init(count: Int) {
        frames = [Rect](repeating: .zero, count: count)
    }
}

/// A layout the timed body can prepare again in place (a struct state would be copied).
final class LayoutBox {
    var layout: Layout

    init(_ layout: Layout) {
        self.layout = layout
    }
}

/// Keeps a value alive so the optimiser cannot drop the work that made it.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
