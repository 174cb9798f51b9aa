import CatalogDiff
import CatalogLayout
import CatalogModel
import CatalogStore
import Foundation

/// The operations whose instruction counts `Scripts/instruction-counts.sh` records under
/// callgrind, the repeatable measure that a change to a hot path must keep: each case prepares
/// its data outside ``measuredRegion(_:)`` and runs the operation inside it, and callgrind counts
/// only inside that function (`--toggle-collect`), so the count is the operation's alone.
package enum InstructionCase: String, CaseIterable, Sendable {
    /// One staged diff of 100,000 Int ids in 100 sections (a tenth deleted, a tenth inserted, a
    /// hundredth moved), the diff suite's shape.
    case diffIntIDs = "diff-int"
    /// The same edit on string ids, flat.
    case diffStringIDs = "diff-string"
    /// `Changeset(from:to:)` on two catalogues of 100,000 video cards in 100 sections, the call
    /// users make: shapes built, content compared (the catalogue diff suite's edit: a tenth
    /// deleted and inserted, a hundredth moved and a hundredth retitled).
    case diffCatalogs = "diff-catalog"
    /// Preparing a flow layout of 100,000 video cards in 100 sections from scratch.
    case flowPrepare = "flow-prepare"
    /// 100 single moves between shelves with room, on 1,000 books (the store's quick path,
    /// SQLite included).
    case quickMoves = "quick-moves"

    /// Prepares the case, runs its operation once inside ``measuredRegion(_:)`` after one run
    /// outside it (so that lazily made state does not count), and cleans up.
    package func run() throws {
        switch self {
        case .diffIntIDs, .diffStringIDs:
            var random = SplitMix64(seed: 100_000)
            let (a, b) = DiffBenchmark.edit(count: 100_000, deleting: 10_000, inserting: 10_000, moving: 1_000, &random)
            if self == .diffIntIDs {
                let (from, to) = (DiffBenchmark.sectioned(a), DiffBenchmark.sectioned(b))
                _ = try StagedDiff.changeset(from: from, to: to)
                try measuredRegion { _ = try StagedDiff.changeset(from: from, to: to) }
            } else {
                let strings = DiffBenchmark.stringIDs(count: 110_000, &random)
                let from = SnapshotShape(sections: [0], items: [a.map { strings[$0] }])
                let to = SnapshotShape(sections: [0], items: [b.map { strings[$0] }])
                _ = try StagedDiff.changeset(from: from, to: to)
                try measuredRegion { _ = try StagedDiff.changeset(from: from, to: to) }
            }
        case .diffCatalogs:
            let (a, b) = CatalogDiffBenchmark.pair(items: 100_000, sections: 100)
            _ = try Changeset(from: a, to: b)
            // Kept alive past the region: their last use would otherwise free them inside it.
            try withExtendedLifetime((a, b)) {
                try measuredRegion { _ = try Changeset(from: a, to: b) }
            }
        case .flowPrepare:
            let catalog = Catalog.generated(name: "videos", items: 100_000, sections: 100, kind: .videos, seed: 1)
            let input = LayoutInput(catalog)
            let configuration = LayoutConfiguration(style: .flow, itemSize: Size(width: 110, height: 150),
                                                    sectionInset: Insets(top: 10, left: 10, bottom: 10, right: 10), headerHeight: 40)
            let viewport = Size(width: 390, height: 844)
            _ = try Layout(input, configuration: configuration, viewportSize: viewport)
            // The catalogue too is kept alive past the region, so that freeing it is not counted.
            try withExtendedLifetime(catalog) {
                try measuredRegion { _ = try Layout(input, configuration: configuration, viewportSize: viewport) }
            }
        case .quickMoves:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-instructions-\(getpid())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            var catalog = Catalog.generated(name: "shelves", items: 1_000, sections: 20, kind: .bookshelf, seed: 3)
            for s in catalog.sections.indices { catalog.sections[s].capacity = 100 }
            let store = try CatalogStore(path: folder.appendingPathComponent("shelves.sqlite").path)
            try store.replace(catalog)
            // Each move takes the first book of one shelf to the end of the next: every shelf keeps
            // its 50 books over a round, so every move has room and takes the quick path.
            let shelves = catalog.sections.map { $0.items.map(\.id) }
            func moves(_ round: Int) throws {
                for s in 0..<100 {
                    let from = s % 20
                    try store.move(item: shelves[from][round * 5 + s / 20], toSection: catalog.sections[(from + 1) % 20].id,
                                   in: catalog.name)
                }
            }
            try moves(0)
            try measuredRegion { try moves(1) }
        }
    }
}

/// The one function callgrind collects in (`--toggle-collect=*measuredRegion*`): what `body`
/// runs, and nothing of the setup around it. Never inlined, so that it exists to be found.
@inline(never)
package func measuredRegion<T>(_ body: () throws -> T) rethrows -> T {
    try body()
}
