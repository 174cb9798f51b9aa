import ArgumentParser
import CatalogDiff
import CatalogImport
import CatalogJSON
import CatalogLayout
import CatalogModel
import CatalogStore
import Foundation

struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Import every sample catalogue from SampleData/ into the database and show what loaded."
    )

    @Option(help: "The folder of sample catalogues (default: ./SampleData, else the package's own).")
    var samples: String?

    @Flag(help: "Print JSON: {\"imports\": [report…], \"catalogs\": [list…]}.")
    var json = false

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let folder = try sampleFolder()
        let files = try FileManager.default.contentsOfDirectory(atPath: folder)
            .filter { $0.hasSuffix(".json") || $0.hasSuffix(".plist") }
            .sorted()
        guard !files.isEmpty else { throw CLIError("no .json or .plist files in \(folder)") }

        let imported = try files.map { file throws in
            try CatalogImporter.read(contentsOf: URL(fileURLWithPath: folder).appendingPathComponent(file))
        }
        let catalogs = imported.map { ($0.catalog, ImportRecord($0.report)) as (Catalog, ImportRecord?) }
        // The importer only returns valid catalogues; names are the one thing to check across files.
        try StoreRules.checkDistinctNames(catalogs)
        let store = try global.openStore()
        let results = try store.replace(catalogs)
        let moves = try demonstrateMoves(store)
        let picture = try drawBookshelf(store)
        if json {
            let imports = zip(imported, results).map { ImportCommand.jsonValue($0, $1, written: true) }
            Output.json(.object([("imports", .array(imports)), ("catalogs", Documents.summaries(try store.summaries())),
                                 ("moves", .array(moves.map(\.jsonValue))), ("picture", .string(picture))]))
            return
        }

        print("Imported \(files.count) sample files from \(folder) into \(global.path):\n")
        for (entry, result) in zip(imported, results) {
            let r = entry.report
            print("  \(r.file) → \"\(result.catalog)\" revision \(result.revision): \(plural(r.sections, "section")), \(plural(r.items, "item"))"
                  + " (\(r.format.rawValue), \(r.shape.rawValue); \(plural(r.derivedIDs, "derived id")), "
                  + "\(plural(r.duplicates, "duplicate key")), \(plural(r.ignoredKeyCount, "ignored key")))")
        }
        let summaries = try store.summaries()
        print("\nCatalogues now in the database:\n")
        print(ListCommand.table(summaries))
        for result in results {
            print("")
            print(ShowCommand.describe(try store.catalog(named: result.catalog), maxItemsPerSection: 4))
        }
        if !moves.isEmpty {
            print("\nMoving books in \"bookshelf\" (shelves hold 4):\n")
            for move in moves { print("  " + move.line) }
        }
        print("\nA picture of the bookshelf (shelf layout, 390×844 viewport): \(picture)")
        print("\nNext: `swift run catalog show bookshelf`, `swift run catalog list --json`, `swift run catalog import FILE`.")
    }

    /// One outcome of the demo's moves.
    struct MoveOutcome {
        var item: String
        var target: String
        var result: Result<WriteResult, StoreError>
        /// What an observer of the catalogue (as `catalog watch` is) received after the move.
        var watched: CatalogUpdate?

        var line: String {
            let move = switch result {
            case .success(let write):
                "move \(item) → \(target): moved, revision \(write.previousRevision) → \(write.revision) (\(write.changeset.summary))"
            case .failure(let error):
                "move \(item) → \(target): rejected, \(error)"
            }
            let watcher = watched.map { update in
                "revision \(update.revision) (from \(update.changeset?.fromRevision ?? 0)): "
                    + (update.changeset?.summary.split(separator: "\n").joined(separator: "; ") ?? "reset")
            } ?? "nothing (no revision was made)"
            return move + "\n    watcher received: " + watcher
        }

        var jsonValue: OrderedJSON {
            var members: [(String, OrderedJSON)] = [("item", .string(item)), ("toSection", .string(target))]
            switch result {
            case .success(let write):
                members += [("outcome", "moved"), ("revision", .integer(write.revision)), ("changeset", write.changeset.jsonValue)]
            case .failure(let error):
                members += [("outcome", "rejected"), ("error", .string(error.description))]
            }
            members.append(("watcher", watched.map { update in
                .object([("revision", .integer(update.revision)), ("changeset", update.changeset?.jsonValue ?? .null)])
            } ?? .null))
            return .object(members)
        }
    }

    /// Moves a book from the full "classics" shelf to "science", which has room for one more,
    /// then tries a second, which the now full shelf refuses; an observer of the catalogue, as
    /// `catalog watch` is, receives the first and nothing for the second. Nothing happens without
    /// the sample bookshelf (a custom --samples folder).
    private func demonstrateMoves(_ store: CatalogStore) throws -> [MoveOutcome] {
        guard let shelf = try? store.catalog(named: "bookshelf"),
              let from = shelf.sections.first(where: { $0.id == "classics" }), from.items.count >= 2,
              let to = shelf.sections.first(where: { $0.id == "science" }),
              let capacity = to.capacity, to.items.count == capacity - 1 else { return [] }
        let watcher = store.observer(of: shelf.name, from: shelf.revision)
        defer { watcher.finish() }
        return try [from.items[0].id, from.items[1].id].map { item in
            let result = Result { () throws(StoreError) in
                try store.move(item: item, toSection: to.id, index: 0, in: shelf.name)
            }
            // This store's commits wake its observers at once: a short wait is plenty.
            let watched = try Self.waitForUpdate(watcher, atMost: .milliseconds(result.isSuccess ? 2_000 : 50))
            return MoveOutcome(item: item, target: to.id, result: result, watched: watched)
        }
    }

    /// The observer's next update, waited for from synchronous code.
    private static func waitForUpdate(_ observer: CatalogObserver, atMost timeout: Duration) throws -> CatalogUpdate? {
        try waitFor { try await observer.next(waitingAtMost: timeout) }
    }


    /// Lays out the sample bookshelf as shelves on a phone-sized screen and writes the picture
    /// beside the database; returns its path. Without a bookshelf it draws the first catalogue.
    private func drawBookshelf(_ store: CatalogStore) throws -> String {
        let summaries = try store.summaries()
        guard let name = summaries.first(where: { $0.name == "bookshelf" })?.name ?? summaries.first?.name else {
            throw CLIError("the demo imported no catalogue to draw")
        }
        let catalog = try store.catalog(named: name)
        let configuration = LayoutConfiguration(style: .shelf, itemSize: Size(width: 80, height: 120), lineSpacing: 10,
                                                interitemSpacing: 10, sectionInset: Insets(top: 12, left: 12, bottom: 12, right: 12),
                                                headerHeight: 32)
        let input = LayoutInput(catalog)
        let layout = try Layout(input, configuration: configuration, viewportSize: Size(width: 390, height: 844))
        let path = URL(fileURLWithPath: global.path).deletingLastPathComponent().appendingPathComponent("\(name).svg").relativePath
        do {
            try Data(LayoutPicture(layout: layout, input: input).svg.utf8).write(to: URL(fileURLWithPath: path))
        } catch {
            throw CLIError("cannot write the picture \(path): \(error.localizedDescription)")
        }
        return path
    }

    private func sampleFolder() throws -> String {
        if let samples { return samples }
        let local = "SampleData"
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: local, isDirectory: &isDirectory), isDirectory.boolValue {
            return local
        }
        // Run from elsewhere: the package's own SampleData, found from this source file's location.
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let bundled = packageRoot.appendingPathComponent("SampleData").path
        if FileManager.default.fileExists(atPath: bundled) { return bundled }
        throw CLIError("cannot find SampleData/; run from the package folder or pass --samples DIR")
    }
}

private extension Result {
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
