// README's Swift walk-through, also the DocC catalogue's "Getting started", compiled and run
// here. DocumentedCodeTests checks that both show exactly the lines between the markers.

// DOC: README.md Sources/CatalogStore/CatalogStore.docc/GettingStarted.md
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
// DOC: end

import CatalogServer
import Hummingbird
import HummingbirdTesting
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

    @Test func movesWithCapacityRun() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("moves-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try movesWithCapacity(database: folder.appendingPathComponent("c.sqlite").path) == [["c", "e", "d", "b"], ["a"]])
    }

    @Test func followingAServerRuns() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("follow-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func book(_ id: String) -> Item { Item(id: id, content: .book(Book(title: id.uppercased(), cover: id))) }
        let server = try CatalogStore.inMemory()
        try server.replace(Catalog(name: "shelf", sections: [
            Section(id: "a", kind: .bookshelf, items: [book("a0")]), Section(id: "b", kind: .bookshelf, items: [book("b0")]),
            Section(id: "c", kind: .bookshelf),
        ]))
        let app = CatalogServer.application(store: server, configuration: ServerConfiguration(port: 0, headTimeout: 300))
        try await app.test(.live) { client in
            let url = URL(string: "http://127.0.0.1:\(try #require(client.port))")!
            #expect(try await followAServer(url, database: folder.appendingPathComponent("phone.sqlite").path) == [["a0"], [], ["b0"]])
            #expect(try server.catalog(named: "shelf").sections.map { $0.items.map(\.id) } == [["a0"], [], ["b0"]])
            #expect(try server.revision(of: "shelf") == 2)
        }
    }

    @MainActor @Test func aFeedIsKeptLive() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("views-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let calls = try await feedKeptLive(database: folder.appendingPathComponent("feed.sqlite").path)
        #expect(calls == ["reload", "batch: 1 moved, 0 inserted", "batch: 0 moved, 0 inserted", "published: birds cats", "recommended: dogs"], "\(calls)")
    }

    @MainActor @Test func changesetsRunStageByStage() throws {
        #expect(try changesetsStageByStage() == ["reload", "batch: 1 moved, 1 inserted"])
    }

    @Test func shelvesLayOutOnAPhone() throws {
        let catalog = try CatalogImporter.read(contentsOf: Self.packageRoot.appendingPathComponent("SampleData/bookshelf.json")).catalog
        let (visible, touched, svg) = try shelvesOnAPhone(catalog)
        #expect(visible > 10)
        #expect(touched == ItemPath(section: 0, item: 0))
        #expect(svg.hasPrefix("<svg") || svg.hasPrefix("<?xml"))
    }
}

/// Every `// DOC: FILE…` block of this folder's sources appears, exactly, as a Swift code block
/// in each file it names, so that the documents show code that compiles and runs.
@Suite("documented code")
struct DocumentedCodeTests {
    @Test func documentsShowTheCodeAsCompiled() throws {
        var blocks = 0
        // This folder's examples, compiled and run here, and the SwiftUI examples, typechecked by
        // Scripts/typecheck-uikit.sh.
        for folder in ["Tests/WalkthroughTests", "Tests/SwiftUIExamples"].map({ WalkthroughTests.packageRoot.appendingPathComponent($0) }) {
            for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".swift") {
                let lines = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8).components(separatedBy: "\n")
                var documents: [String]?
                var code: [String] = []
                for line in lines {
                    if line == "// DOC: end", let names = documents {
                        blocks += 1
                        let block = "```swift\n" + code.joined(separator: "\n") + "\n```\n"
                        for name in names {
                            let text = try String(contentsOf: WalkthroughTests.packageRoot.appendingPathComponent(name), encoding: .utf8)
                            #expect(text.contains(block), "\(name) does not show the code of \(file) as it is")
                        }
                        documents = nil
                    } else if line.hasPrefix("// DOC: ") {
                        documents = line.dropFirst("// DOC: ".count).split(separator: " ").map(String.init)
                        code = []
                    } else if documents != nil {
                        code.append(line)
                    }
                }
            }
        }
        #expect(blocks == 7)
    }
}
