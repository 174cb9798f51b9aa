import ArgumentParser
import CatalogImport
import CatalogJSON
import CatalogModel
import CatalogStore
import Foundation

extension CatalogFileFormat: ExpressibleByArgument {}

/// What `--kind` accepts: a section kind for a loose file, or `native`.
enum KindOption: String, ExpressibleByArgument, CaseIterable {
    case native, videos, bookshelf, icons

    var shape: CatalogShape {
        switch self {
        case .native: .native
        case .videos: .videos
        case .bookshelf: .bookshelf
        case .icons: .icons
        }
    }
}

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import catalogue files (JSON or plist, native or loose shapes) into the database.",
        discussion: """
            All files are read and checked before anything is written, then stored in one \
            transaction: either every file lands or none does. Importing into an existing catalogue \
            replaces its content and raises its revision by one.
            """
    )

    @Argument(help: "Catalogue files: .json or .plist (XML or binary).")
    var files: [String]

    @Option(name: .customLong("catalog"), help: "The catalogue's name (one file only); default: the file's `catalog` key, else its base name.")
    var catalogName: String?

    @Option(help: "How the content is laid out: native, videos, bookshelf or icons (default: recognised).")
    var kind: KindOption?

    @Option(help: "The file syntax: json or plist (default: from the extension).")
    var format: CatalogFileFormat?

    @Option(help: "Capacity of the shelves of a loose nested-array file (default 4).")
    var capacity: Int?

    @Option(help: ArgumentHelp("Where the items sit in a wrapped file, as keys joined by dots (default: found when only one array is reachable).",
                               valueName: "path"))
    var root: String?

    @Option(name: .customLong("map"), help: ArgumentHelp("Read FIELD from KEY of each item (repeatable), e.g. --map cover=img; beats every alias.",
                                                          valueName: "field=key"))
    var maps: [String] = []

    @Flag(help: "Read and check the files, print the report, write nothing.")
    var dryRun = false

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if catalogName != nil && files.count > 1 {
            throw ValidationError("--catalog names one catalogue; give it with one file")
        }
    }

    func run() throws {
        let options: ImportOptions
        do {
            options = ImportOptions(catalogName: catalogName, format: format, shape: kind?.shape, shelfCapacity: capacity,
                                    root: root, fieldMap: try ImportOptions.fieldMap(maps))
            try options.validate()
        } catch {
            throw CLIError("--\(error.message)")
        }
        // Started before reading, so that its one-second threshold covers the whole import.
        let progress = ProgressBar(label: "Importing")
        defer { progress.finish() }
        // Read everything first: a bad file stops the command before the database is even opened.
        var imported: [ImportedCatalog] = []
        for file in files {
            imported.append(try CatalogImporter.read(contentsOf: URL(fileURLWithPath: file), options: options))
        }
        let catalogs = imported.map { ($0.catalog, ImportRecord($0.report)) as (Catalog, ImportRecord?) }
        // The importer only returns valid catalogues; names are the one thing to check across files.
        try StoreRules.checkDistinctNames(catalogs)
        if dryRun {
            // What the import would change, read without writing (and without creating a database).
            let results = if global.isPostgres {
                try global.withDatabase(.read) { try await $0.previewReplacing(catalogs) }
            } else {
                try CatalogStore.previewReplacing(catalogs, in: FileManager.default.fileExists(atPath: global.path)
                                                  ? try global.openStoreForReading() : nil)
            }
            report(imported, results: results, written: false)
            return
        }
        let results = try global.withDatabase(.create) { store in
            try await store.replace(catalogs) { done, total in progress.update(done: done, total: total) }
        }
        progress.finish()
        report(imported, results: results, written: true)
    }

    /// Prints what each file held and, from `results`, what the import changed (`written`) or
    /// would change (a dry run).
    private func report(_ imported: [ImportedCatalog], results: [WriteResult], written: Bool) {
        if json {
            let objects = imported.enumerated().map { index, entry in Self.jsonValue(entry, results[index], written: written) }
            Output.json(objects.count == 1 ? objects[0] : .array(objects))
            return
        }
        for (index, entry) in imported.enumerated() {
            let r = entry.report
            let target = written ? "catalogue \"\(entry.catalog.name)\" at revision \(results[index].revision)"
                : "catalogue \"\(entry.catalog.name)\" (dry run, nothing written)"
            print("\(r.file) → \(target)")
            print("  \(plural(r.sections, "section")), \(plural(r.items, "item"))"
                  + " · \(r.format.rawValue), \(r.shape.rawValue) shape" + (r.root.map { " from \($0)" } ?? ""))
            if let reason = r.shapeReason { print("  read as \(r.shape.rawValue) because \(reason)") }
            var notes = ["derived ids: \(r.derivedIDs)", "duplicate keys: \(r.duplicates)",
                         "ignored keys: \(r.ignoredKeyCount)"]
            if r.integerIDs > 0 { notes.insert("integer ids: \(r.integerIDs)", at: 1) }
            if !r.ignoredKeys.isEmpty {
                notes[2] += " (" + r.ignoredKeys.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ") + ")"
            }
            print("  " + notes.joined(separator: " · "))
            if results[index].previousRevision > 0 {
                let result = results[index]
                print("  \(written ? "changes" : "would change") from revision \(result.previousRevision):")
                print(result.changeset.summary.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
            }
        }
    }
}

extension ImportCommand {
    /// `{"catalog", "revision", "previousRevision", "changeset", "report"}` for one imported file;
    /// a dry run adds `"dryRun": true`, and its revision and changeset are those the import would make.
    static func jsonValue(_ entry: ImportedCatalog, _ result: WriteResult, written: Bool) -> OrderedJSON {
        var members: [(String, OrderedJSON)] = [("catalog", .string(entry.catalog.name))]
        if !written { members.append(("dryRun", true)) }
        members += [("revision", .integer(result.revision)), ("previousRevision", .integer(result.previousRevision)),
                    ("changeset", result.changeset.jsonValue), ("report", entry.report.jsonValue)]
        return .object(members)
    }
}

extension ImportReport {
    var jsonValue: OrderedJSON {
        .object([("file", .string(file)), ("format", .string(format.rawValue)), ("shape", .string(shape.rawValue)),
                 ("root", root.map(OrderedJSON.string) ?? .null), ("shapeReason", shapeReason.map(OrderedJSON.string) ?? .null),
                 ("integerIds", .integer(integerIDs)), ("sections", .integer(sections)), ("items", .integer(items)), ("derivedIds", .integer(derivedIDs)),
                 ("duplicates", .integer(duplicates)),
                 ("ignoredKeys", .object(ignoredKeys.sorted { $0.key < $1.key }.map { ($0.key, .integer($0.value)) }))])
    }
}
