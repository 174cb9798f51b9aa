import ArgumentParser
import CatalogDiff
import CatalogImport
import CatalogJSON
import CatalogModel
import CatalogStore
import Foundation

struct ApplyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apply",
        abstract: "Apply a batch of updates (docs/Batches-and-moves.md) to a catalogue in one transaction.",
        discussion: """
            BATCH.json: {"baseRevision": 12, "operations": [{"op": "moveItem", "id": "b5", "toSection": "s1", \
            "index": 2}, …]} with the operations insertItem, deleteItem, updateItem, moveItem (with an optional \
            "policy": reject, displace or swap), insertSection, deleteSection, moveSection and updateSection. \
            Any failure rejects the whole batch and changes nothing.
            """
    )

    @Argument(help: "The catalogue's name.")
    var catalog: String

    @Argument(help: "The batch file (JSON).")
    var batch: String

    @Flag(help: "Check the batch and print what it would do, without writing.")
    var dryRun = false

    @Flag(help: "Print JSON: {\"revision\": N, \"changeset\": {…}}.")
    var json = false

    @OptionGroup var global: GlobalOptions

    func run() throws {
        // The file is read and checked before the database is opened, and the batch is checked
        // against a read-only connection first, so a refused batch leaves the file untouched.
        let batch = try BatchReader.read(contentsOf: URL(fileURLWithPath: self.batch))
        let catalog = self.catalog
        let preview = try global.withDatabase(.read) { try await $0.preview(batch, to: catalog) }
        if dryRun {
            WriteOutput.print(preview, json: json, what: "dry run: \(plural(batch.operations.count, "operation")), nothing written")
            return
        }
        let result = try global.withDatabase(.write) { try await $0.apply(batch, to: catalog) }
        WriteOutput.print(result, json: json, what: plural(batch.operations.count, "operation"))
    }
}

struct MoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "move",
        abstract: "Move a book within its shelf or to another shelf (docs/Batches-and-moves.md).",
        discussion: """
            Policies for a full target shelf: reject (the default: an error naming the shelf and its capacity), \
            displace (the shelf's last book moves to the start of the next shelf, cascading) or swap (the book at \
            the index takes the moved book's place). Without --index the book goes to the end of the shelf.
            """
    )

    @Argument(help: "The catalogue's name.")
    var catalog: String

    @Argument(help: "The id of the item to move.")
    var item: String

    @Option(name: .customLong("to"), help: "The id of the target section.")
    var section: String

    @Option(help: "The index in the target section (default: the end).")
    var index: Int?

    @Option(help: "What to do when the target shelf is full: reject, displace or swap.")
    var policy: MovePolicy = .reject

    @Option(help: "Refuse the move unless the catalogue is still at this revision.")
    var baseRevision: Int?

    @Flag(help: "Print JSON: {\"revision\": N, \"changeset\": {…}}.")
    var json = false

    @OptionGroup var global: GlobalOptions

    func run() throws {
        // Checked against a read-only connection first, so a refused move leaves the file untouched.
        let batch = Batch(baseRevision: baseRevision, operations: [.moveItem(id: item, toSection: section, index: index, policy: policy)])
        let catalog = self.catalog
        if !global.isPostgres {
            _ = try global.withDatabase(.read) { try await $0.preview(batch, to: catalog) }
        }
        let result = try global.withDatabase(.write) { try await $0.apply(batch, to: catalog) }
        WriteOutput.print(result, json: json, what: "moved \(item) to \(section)" + (index.map { " at \($0)" } ?? ", at the end"))
    }
}

extension MovePolicy: ExpressibleByArgument {}

/// What `apply` and `move` print: the new revision and the changeset to animate.
enum WriteOutput {
    static func print(_ result: WriteResult, json: Bool, what: String) {
        if json {
            Output.json(Documents.write(result))
            return
        }
        Swift.print("\(result.catalog): revision \(result.previousRevision) → \(result.revision) (\(what))")
        Swift.print(result.changeset.summary)
    }
}
