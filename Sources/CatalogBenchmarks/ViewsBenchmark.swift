import CBenchmarkSupport
import CatalogDiff
import CatalogModel
import CatalogViews
import Foundation

/// `catalog-bench views` (docs/Views.md): a live view of video cards in 100 stored sections —
/// `where status in ["published","recommended"] and playCount >= 1000000` (about half match),
/// `sort=-playCount,title`, `group=status`, with and without `limit=50` — kept through single
/// writes (a play count that moves the item, a move between stored sections, an insert, a
/// delete) and a batch of 100 play counts. The baseline, in the same run: what an app does with
/// a database and a diff library — the view evaluated on the new catalogue, then
/// `Changeset(from:to:)` between the two views. The first evaluation is measured against the
/// floor of sorting the matching items' (key, stored rank) pairs with the standard library, and
/// the live view's own heap per matching item is reported.
package struct ViewsBenchmark {
    package var sizes: [Int]
    package var runs: Int

    package init(sizes: [Int], runs: Int) {
        self.sizes = sizes
        self.runs = runs
    }

    static let filter = #"status in ["published", "recommended"] and playCount >= 1000000"#

    static func definition(limit: Int?) -> ViewDefinition {
        try! ViewDefinition(where: filter, sort: "-playCount,title", group: "status", limit: limit)
    }

    /// `count` video cards in 100 sections; statuses spread so that about half pass the filter.
    static func catalog(_ count: Int) -> Catalog {
        var random = SplitMix64(seed: 62)
        let statuses: [VideoStatus] = [.published, .published, .published, .recommended, .recommended, .recommended, .draft, .reviewing, .rejected, .draft]
        let perSection = max(1, count / 100)
        return Catalog(name: "feed", revision: 1, sections: (0..<100).map { s in
            Section(id: "s\(s)", kind: .videos, items: (0..<perSection).map { i in
                let n = s * perSection + i
                return Item(id: "v\(n)", content: .video(Video(
                    title: "Video \(UInt64.random(in: 0..<1_000_000, using: &random))", cover: "c\(n).jpg",
                    playCount: Int.random(in: 0..<10_000_000, using: &random), likeCount: n % 1000,
                    status: statuses[Int.random(in: 0..<statuses.count, using: &random)])))
            })
        })
    }

    /// A write to `catalog`: the catalogue after it and its update, as a store sends it (one
    /// stage; the editor's changeset for such a write).
    enum Write: String, CaseIterable {
        case playCount = "a play count that moves the item"
        case move = "a move between stored sections"
        case insert = "an insert"
        case delete = "a delete"
        case batch = "a batch of 100 play counts"
    }

    static func apply(_ write: Write, to a: Catalog, _ random: inout SplitMix64, serial: Int) -> CatalogUpdate {
        var b = a
        b.revision += 1
        var stage = Stage()
        func position() -> (Int, Int) {
            let s = Int.random(in: 0..<b.sections.count, using: &random)
            return (s, Int.random(in: 0..<b.sections[s].items.count, using: &random))
        }
        func newCount(_ item: inout Item) {
            guard case .video(var video) = item.content else { return }
            video.playCount = Int.random(in: 1_000_000..<10_000_000, using: &random)
            if video.status != .published && video.status != .recommended { video.status = .published }
            item.content = .video(video)
        }
        switch write {
        case .playCount:
            let (s, i) = position()
            newCount(&b.sections[s].items[i])
            stage.items.reloaded = [ItemPath(section: s, item: i)]
        case .move:
            let (s, i) = position()
            let item = b.sections[s].items.remove(at: i)
            let t = (s + 1 + Int.random(in: 0..<(b.sections.count - 1), using: &random)) % b.sections.count
            let j = Int.random(in: 0...b.sections[t].items.count, using: &random)
            b.sections[t].items.insert(item, at: j)
            stage.items.moved = [Move(from: ItemPath(section: s, item: i), to: ItemPath(section: t, item: j))]
        case .insert:
            let (s, i) = position()
            var item = Item(id: "new\(serial)", content: .video(Video(title: "New \(serial)", cover: "n.jpg", playCount: 0, status: .published)))
            newCount(&item)
            b.sections[s].items.insert(item, at: i)
            stage.items.inserted = [ItemPath(section: s, item: i)]
        case .delete:
            let (s, i) = position()
            b.sections[s].items.remove(at: i)
            stage.items.deleted = [ItemPath(section: s, item: i)]
        case .batch:
            var paths = Set<ItemPath>()
            while paths.count < 100 {
                let (s, i) = position()
                if paths.insert(ItemPath(section: s, item: i)).inserted { newCount(&b.sections[s].items[i]) }
            }
            stage.items.reloaded = paths.sorted()
        }
        let changeset = Changeset(stages: [stage], fromRevision: a.revision, toRevision: b.revision)
        var update = CatalogUpdate(revision: b.revision, catalog: b, changeset: changeset, stages: [b])
        update.previous = a
        return update
    }

    package func run(log: (String) -> Void) throws -> [BenchmarkResult] {
        var results: [BenchmarkResult] = []
        for size in sizes {
            log("views: \(size) video cards")
            let catalog = Self.catalog(size)
            results += try firstEvaluation(catalog)
            for limit in [nil, 50] as [Int?] {
                results += try writes(catalog, limit: limit)
            }
        }
        return results
    }

    /// The first evaluation against the floor, and the live view's own heap.
    func firstEvaluation(_ catalog: Catalog) throws -> [BenchmarkResult] {
        let definition = Self.definition(limit: nil)
        let size = catalog.itemCount
        let measured = try Clock.compare(runs: runs, case: { () }, { _ in _ = try definition.evaluate(on: catalog) },
                                         baseline: { () }, { _ in
            // The floor: the matching items' (keys, stored rank) pairs sorted by the standard library.
            var pairs: [(status: String, plays: Int, title: String, rank: Int)] = []
            pairs.reserveCapacity(size)
            var rank = 0
            for section in catalog.sections {
                for item in section.items {
                    rank += 1
                    guard case .video(let video) = item.content, video.playCount >= 1_000_000,
                          video.status == .published || video.status == .recommended else { continue }
                    pairs.append((video.status.rawValue, video.playCount, video.title, rank))
                }
            }
            pairs.sort { a, b in
                if a.status != b.status { return a.status < b.status }
                if a.plays != b.plays { return a.plays > b.plays }
                if a.title != b.title { return a.title < b.title }
                return a.rank < b.rank
            }
            precondition(!pairs.isEmpty)
        })
        let before = catalog_allocated_bytes()
        let live = try LiveView(definition, of: catalog)
        let after = catalog_allocated_bytes()
        let matching = live.result.total
        // The view's own memory: the live view's state less the view catalogue's sections, whose
        // items the source shares.
        let bytes = Double(after - before) / Double(max(1, matching))
        withExtendedLifetime(live) {}
        return [BenchmarkResult(suite: "views", name: "first evaluation, \(size) cards (\(matching) match)",
                                medianMS: measured.median, baseline: "sorting the matching (key, rank) pairs",
                                baselineMedianMS: measured.baselineMedian, items: size, bytesPerItem: bytes)]
    }

    /// Each kind of write through the live view, against evaluating and diffing, and the p99 of
    /// single writes.
    func writes(_ catalog: Catalog, limit: Int?) throws -> [BenchmarkResult] {
        let definition = Self.definition(limit: limit)
        let size = catalog.itemCount
        var live = try LiveView(definition, of: catalog)
        var random = SplitMix64(seed: 7)
        var results: [BenchmarkResult] = []
        var serial = 0
        for write in Write.allCases {
            var times: [Double] = [], baselineTimes: [Double] = []
            // Single writes are cheap: time many of them, and as many baselines as the runs ask.
            let count = write == .batch ? runs : max(runs, 50)
            for k in 0...count {
                serial += 1
                let update = Self.apply(write, to: live.source, &random, serial: serial)
                let before = live.result.catalog
                let time = try Clock.elapsed { _ = try live.apply(update) }
                if k > 0 { times.append(time) }
                if k > 0 && k <= runs {
                    baselineTimes.append(try Clock.elapsed {
                        let view = try definition.evaluate(on: update.catalog)
                        _ = try Changeset(from: before, to: view.catalog)
                    })
                }
            }
            let p99 = Clock.percentile(times, 0.99)
            let name = "\(write.rawValue), \(size) cards" + (limit.map { ", limit \($0)" } ?? "")
            let baseline = Clock.median(baselineTimes)
            results.append(BenchmarkResult(suite: "views", name: name, medianMS: Clock.median(times),
                                           baseline: "evaluate + Changeset(from:to:)", baselineMedianMS: baseline, items: 1))
            results.append(BenchmarkResult(suite: "views", name: name + ", p99", medianMS: p99,
                                           baseline: "evaluate + Changeset(from:to:)", baselineMedianMS: baseline, items: 1))
        }
        return results
    }
}
