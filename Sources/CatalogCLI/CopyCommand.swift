import ArgumentParser
import CatalogImport
import CatalogModel
import CatalogStore
import Foundation

struct CopyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy catalogues, with their revisions and journals, from one database to another (SQLite to PostgreSQL, say).",
        discussion: """
            --from and --to each take a SQLite file or a postgres:// URL. Without names, every \
            catalogue is copied, with the revisions of deleted ones (so a name used again still goes \
            on from them), the records of devices' numbered writes (so their queued writes go on \
            being numbered, and answered, where they were) and the database's identity (so devices \
            that follow it go on as with the same server moved). Revisions and journals arrive as they are, \
            so clients resume with their Last-Event-ID or ?since= across the move. Everything is written in one transaction; a \
            catalogue already in the target is refused unless --replace.
            """
    )

    @Option(help: ArgumentHelp("The database to read: a SQLite file or a postgres:// URL.", valueName: "db"))
    var from: String

    @Option(help: ArgumentHelp("The database to write: a SQLite file (created if missing) or a postgres:// URL.", valueName: "db"))
    var to: String

    @Argument(help: "The catalogues to copy (default: all).")
    var catalogs: [String] = []

    @Flag(help: "Replace catalogues of the same names in the target.")
    var replace = false

    @Flag(help: "Print [{\"catalog\", \"revision\", \"journal\"}] for the catalogues copied.")
    var json = false

    func run() throws {
        var source = GlobalOptions()
        source.db = from
        var target = GlobalOptions()
        target.db = to
        guard source.path != target.path else { throw CLIError("--from and --to name the same database") }
        let names = catalogs
        let (archives, retired, clients, identity) = try source.withDatabase(.read) { store in
            let all = names.isEmpty ? try await store.summaries().map(\.name) : names
            var archives: [CatalogArchive] = []
            for name in all { archives.append(try await store.archive(of: name)) }
            // Deleted names and clients' numbers come along with a whole copy only.
            let retired = names.isEmpty ? try await store.retiredCatalogs() : [:]
            let clients = names.isEmpty ? try await store.clientRecords() : []
            // A whole copy is the same database moved: devices that follow it go on there.
            let identity = names.isEmpty ? try await store.identity() : nil
            return (archives, retired, clients, identity)
        }
        let replacing = replace
        try target.withDatabase(.create) { store in
            try await store.restore(archives, retired: retired, clients: clients, replacing: replacing)
            if let identity { try await store.adoptIdentity(identity) }
        }
        if json {
            Output.json(.array(archives.map { archive in
                .object([("catalog", .string(archive.catalog.name)), ("revision", .integer(archive.catalog.revision)),
                         ("journal", .integer(archive.journal.count))])
            }))
            return
        }
        for archive in archives {
            let journal = archive.journal.first.map { "journal from revision \($0.revision - 1)" } ?? "no journal"
            print("copied \"\(archive.catalog.name)\" at revision \(archive.catalog.revision): "
                  + "\(plural(archive.catalog.sections.count, "section")), \(plural(archive.catalog.itemCount, "item")), \(journal)")
        }
        if archives.isEmpty { print("nothing to copy: \(source.displayName) holds no catalogue") }
    }
}
