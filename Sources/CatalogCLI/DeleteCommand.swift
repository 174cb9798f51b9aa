import ArgumentParser
import CatalogImport
import CatalogModel
import CatalogStore

struct DeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete catalogues, with their journals and import history, in one transaction.",
        discussion: """
            Asks nothing; prints what it deleted. All the catalogues named are deleted, or none (an \
            unknown name, or --if-revision not the current revision, deletes nothing). A catalogue \
            imported later under the same name goes on from the deleted one's revisions: clients \
            that still have the old one reload.
            """
    )

    @Argument(help: "The catalogues' names.")
    var catalogs: [String]

    @Option(help: "Delete only if the catalogue is at this revision (one catalogue only).")
    var ifRevision: Int?

    @Flag(help: "Print [{\"catalog\", \"revision\", \"sections\", \"items\"}] for the catalogues deleted.")
    var json = false

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard !catalogs.isEmpty else { throw ValidationError("name at least one catalogue to delete") }
        if ifRevision != nil, catalogs.count > 1 {
            throw ValidationError("--if-revision applies to one catalogue; name only one")
        }
    }

    func run() throws {
        let requests = catalogs.map { (name: $0, ifRevision: ifRevision) }
        let deleted = try global.withDatabase(.write) { try await $0.delete(requests) }
        if json {
            Output.json(.array(deleted.map { catalog in
                .object([("catalog", .string(catalog.name)), ("revision", .integer(catalog.revision)),
                         ("sections", .integer(catalog.sections)), ("items", .integer(catalog.items))])
            }))
        } else {
            for catalog in deleted {
                print("deleted \"\(catalog.name)\" at revision \(catalog.revision): \(plural(catalog.sections, "section")), \(plural(catalog.items, "item"))")
            }
        }
    }
}
