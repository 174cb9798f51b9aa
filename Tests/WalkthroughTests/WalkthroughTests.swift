// README's Swift walk-through, compiled and run here. The test below checks that README shows
// exactly the lines between the markers, so the two never drift apart.

// README: begin
import CatalogDiff
import CatalogImport
import CatalogLayout
import CatalogModel
import CatalogStore
import Foundation

/// Reads a bookshelf file, stores it, watches it, moves a book and lays the shelves out.
func tour(file: URL, database: String) async throws -> [LayoutAttributes] {
    // Read a file as apps ship it (JSON or property list); a bad one throws an ImportError
    // naming the file, the path inside it and what was expected.
    let imported = try CatalogImporter.read(contentsOf: file)
    let store = try CatalogStore(path: database)
    let stored = try store.replace(imported.catalog)  // one transaction: revision 1

    // Every later write to "bookshelf", from any store or process, arrives as one update: the
    // changeset from the revision the watcher has, with the catalogue after each of its stages.
    let watcher = Task { () -> CatalogUpdate? in
        for try await update in store.updates(of: "bookshelf", from: stored.revision) { return update }
        return nil
    }

    // Move a book to another shelf. A full shelf refuses (or, with `policy:`, displaces or swaps).
    let moved = try await store.move(item: "b-moby", toSection: "science", in: "bookshelf")
    print(moved.revision)  // 2

    // What a collection view applies: one performBatchUpdates per stage, the data source
    // answering from that stage's catalogue inside it (CollectionUpdater does this for you).
    guard let update = try await watcher.value, let changeset = update.changeset else { return [] }
    for (stage, catalog) in zip(changeset.stages, update.stages) {
        print(stage.items.moved.map { "\($0.from) → \($0.to)" }, catalog.sections[0...1].map { $0.items.count })
        // ["[0, 0] → [1, 3]"] [3, 4]
    }

    // Lay the shelves out for a phone's screen and ask what the first screenful shows.
    let layout = try Layout(LayoutInput(update.catalog),
                            configuration: LayoutConfiguration(style: .shelf, itemSize: Size(width: 80, height: 120), headerHeight: 32),
                            viewportSize: Size(width: 390, height: 844))
    return layout.elements(in: Rect(x: 0, y: 0, width: 390, height: 844))
}
// README: end

import Testing

@Suite("README's walk-through")
struct WalkthroughTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test func runsOnTheSampleBookshelf() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("walkthrough-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("catalog.sqlite").path
        let visible = try await tour(file: Self.packageRoot.appendingPathComponent("SampleData/bookshelf.json"), database: database)
        #expect(visible.contains { $0.kind == .cell } && visible.contains { $0.kind == .decoration })
        let store = try CatalogStore(path: database)
        let shelves = try store.catalog(named: "bookshelf")
        #expect(shelves.revision == 2)
        #expect(shelves.sections[1].items.last?.id == "b-moby")
    }

    @Test func readmeShowsTheCodeAsCompiled() throws {
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let begin = try #require(source.range(of: "// README: begin\n"))
        let end = try #require(source.range(of: "// README: end", range: begin.upperBound..<source.endIndex))
        let code = String(source[begin.upperBound..<end.lowerBound])
        let readme = try String(contentsOf: Self.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("```swift\n" + code + "```\n"), "README's walk-through differs from WalkthroughTests.swift")
    }
}
