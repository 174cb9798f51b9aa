import CatalogDiff
import CatalogModel

/// The catalogue-level rows of `catalog-bench diff`: `Changeset(from:to:)` on two catalogues, as
/// apps, the importer, the updater's coalescing and `catalog diff` call it (content compared,
/// shapes built), with and without the per-stage catalogues, against the id-level diff of the
/// same pair (shapes built beforehand and the changed ids given) as the baseline; and the same
/// call on a target that shares no storage with the source, as a re-imported file does.
///
/// The edit is the one peers are measured with: a tenth of the items deleted, a tenth inserted,
/// a hundredth moved and a hundredth of the items' content changed.
struct CatalogDiffBenchmark {
    var sizes: [Int]
    var runs: Int

    func run(log: (String) -> Void) throws -> [BenchmarkResult] {
        var results: [BenchmarkResult] = []
        for size in sizes {
            for sections in [1, 100] {
                let (a, b) = Self.pair(items: size, sections: sections)
                let label = "\(size.abbreviated) items, catalogues, \(sections == 1 ? "flat" : "\(sections) sections")"
                log("diff: \(label)")
                let (shapeA, shapeB) = (a.shape, b.shape)
                let changes = b.contentChanges(since: a)
                let runs = size >= 1_000_000 ? max(1, self.runs / 2) : self.runs
                let idLevel = { _ = try StagedDiff.changeset(from: shapeA, to: shapeB, updatedSections: changes.sections,
                                                               updatedItems: changes.items) }
                let plain = try Clock.compare(runs: runs, case: {}, { _ = try Changeset(from: a, to: b) }, baseline: {}, idLevel)
                results.append(BenchmarkResult(suite: "diff", name: "\(label): Changeset(from:to:)", medianMS: plain.median,
                                               baseline: "id-level diff of the same pair", baselineMedianMS: plain.baselineMedian,
                                               items: size))
                // The same pair with the target read apart from the source, as a re-import is: no
                // item shares its content's storage (or any string) with the source's.
                let apart = Self.madeApart(b)
                let separate = try Clock.compare(runs: runs, case: {}, { _ = try Changeset(from: a, to: apart) }, baseline: {}, idLevel)
                results.append(BenchmarkResult(suite: "diff", name: "\(label): Changeset(from:to:), the target made apart (no storage shared)",
                                               medianMS: separate.median, baseline: "id-level diff of the same pair",
                                               baselineMedianMS: separate.baselineMedian, items: size))
                let stages = try Changeset(from: a, to: b).stages.count
                let staged = try Clock.compare(runs: runs, case: {}, {
                    _ = try Changeset(from: a, to: b).stagedCatalogs(from: a, to: b)
                }, baseline: {}, idLevel)
                results.append(BenchmarkResult(suite: "diff", name: "\(label): Changeset(from:to:) + stagedCatalogs (\(stages) stages)",
                                               medianMS: staged.median, baseline: "id-level diff of the same pair",
                                               baselineMedianMS: staged.baselineMedian, items: size))
            }
        }
        if let size = sizes.first {
            // The updater is main-actor isolated, as the views it drives; `catalog-bench` runs
            // its suites on the main thread.
            log("diff: CollectionUpdater coalescing, \(size.abbreviated) items")
            results.append(try MainActor.assumeIsolated { try Self.coalescing(items: size, runs: runs) })
        }
        return results
    }

    /// `catalog` with every item made anew, its id and texts in strings of their own: equal to
    /// `catalog`, sharing no storage with it, as a second decoding of the same file would be.
    static func madeApart(_ catalog: Catalog) -> Catalog {
        func fresh(_ text: String) -> String { String(decoding: Array(text.utf8), as: UTF8.self) }
        let copy = Catalog(name: catalog.name, revision: catalog.revision, sections: catalog.sections.map { section in
            Section(id: fresh(section.id), kind: section.kind, title: section.title.map(fresh), capacity: section.capacity,
                    items: section.items.map { item in
                        let content: ItemContent = switch item.content {
                        case .video(let v): .video(Video(title: fresh(v.title), cover: fresh(v.cover), playCount: v.playCount,
                                                         likeCount: v.likeCount, status: v.status, statusText: v.statusText.map(fresh)))
                        case .book(let b): .book(Book(title: fresh(b.title), cover: fresh(b.cover), author: b.author.map(fresh)))
                        case .icon(let i): .icon(Icon(name: fresh(i.name), icon: fresh(i.icon)))
                        }
                        return Item(id: fresh(item.id), content: content, size: item.size)
                    })
        })
        precondition(copy == catalog, "a catalogue made apart differs from its source")
        return copy
    }

    /// `CollectionUpdater` on the main thread: two updates arrive while a batch runs, and when it
    /// ends the updater diffs the catalogue on screen against the newest (changeset and per-stage
    /// catalogues) and starts its first batch. Timed: that end of batch. The two updates together
    /// delete and insert a hundredth of the items and move and change a thousandth, below the
    /// updater's reload threshold at 10k items, so they animate.
    @MainActor static func coalescing(items: Int, runs: Int) throws -> BenchmarkResult {
        let (a, b) = pair(items: items, sections: 100, churn: items / 100)
        let onScreen = Catalog(name: a.name, revision: 2, sections: a.sections)
        let newest = Catalog(name: b.name, revision: 4, sections: b.sections)
        let between = Catalog(name: b.name, revision: 3, sections: b.sections)
        let (shapeA, shapeB) = (a.shape, b.shape)
        let changes = b.contentChanges(since: a)
        let measured = try Clock.compare(runs: runs * 3, case: { () -> (CollectionUpdater<BenchmarkView>, BenchmarkView) in
            let view = BenchmarkView()
            let updater = CollectionUpdater(target: view)
            updater.receive(.reset(Catalog(name: a.name, revision: 1, sections: a.sections)))
            // Revision 1 → 2 runs (a batch of nothing that the view holds open), 3 and 4 wait.
            var first = Stage()
            first.items.reloaded = [ItemPath(section: 0, item: 0)]
            updater.receive(CatalogUpdate(revision: 2, catalog: onScreen, changeset: Changeset(stages: [first], fromRevision: 1, toRevision: 2),
                                          stages: [onScreen]))
            updater.receive(CatalogUpdate(revision: 3, catalog: between, changeset: Changeset(stages: [], fromRevision: 2, toRevision: 3), stages: []))
            updater.receive(CatalogUpdate(revision: 4, catalog: newest, changeset: Changeset(stages: [], fromRevision: 3, toRevision: 4), stages: []))
            return (updater, view)
        }, { updater, view in
            view.finishBatch()
            precondition(updater.catalog?.revision == 4 || view.batches == 2, "the coalesced update did not start")
        }, baseline: {}, {
            _ = try StagedDiff.changeset(from: shapeA, to: shapeB, updatedSections: changes.sections, updatedItems: changes.items)
        })
        return BenchmarkResult(suite: "diff", name: "\(items.abbreviated) items: CollectionUpdater coalescing two updates at the end of a batch",
                               medianMS: measured.median, baseline: "id-level diff of the same pair",
                               baselineMedianMS: measured.baselineMedian, items: items)
    }

    /// A generated catalogue of videos and the same catalogue edited: 10 % deleted, 10 % inserted,
    /// 1 % moved, 1 % of the surviving items with a new title (with `churn`: that many deleted and
    /// inserted, a tenth of it moved and retitled); the items dealt over `sections`
    /// sections of equal size on both sides, so that some cross from one section to another.
    static func pair(items: Int, sections: Int, churn: Int? = nil) -> (Catalog, Catalog) {
        let changed = churn ?? items / 10
        var random = SplitMix64(seed: UInt64(items) ^ 0xCA7A)
        let (order, edited) = DiffBenchmark.edit(count: items, deleting: changed, inserting: changed, moving: changed / 10, &random)
        let pool = Catalog.generated(items: items + changed, sections: 1, seed: 3).sections[0].items
        var newItems = edited.map { pool[$0] }
        for _ in 0..<(churn ?? items / 10) / 10 {
            let k = Int(random.next() % UInt64(newItems.count))
            guard case .video(var video) = newItems[k].content else { continue }
            video.title += " (edited)"
            newItems[k].content = .video(video)
        }
        func dealt(_ flat: [Item], revision: Int) -> Catalog {
            let per = max(1, (flat.count + sections - 1) / sections)
            let chunks = (0..<sections).map { s in Array(flat[min(flat.count, s * per)..<min(flat.count, (s + 1) * per)]) }
            return Catalog(name: "videos", revision: revision, sections: chunks.enumerated().map { s, items in
                Section(id: "s\(s)", kind: .videos, title: "Videos \(s)", items: items)
            })
        }
        return (dealt(order.map { pool[$0] }, revision: 1), dealt(newItems, revision: 2))
    }
}

/// A collection view that holds each batch open until told to finish it, as an animation does.
@MainActor final class BenchmarkView: CatalogUpdateTarget {
    var isOnScreen: Bool { true }
    private var completion: (() -> Void)?
    private(set) var batches = 0

    func performBatch(_ batch: CollectionBatch, setData: () -> Void, completion: @escaping () -> Void) {
        setData()
        batches += 1
        self.completion = completion
    }

    func reloadAll(setData: () -> Void) { setData() }

    /// Ends the batch that runs (its completion may start the next).
    func finishBatch() {
        let completion = self.completion
        self.completion = nil
        completion?()
    }
}
