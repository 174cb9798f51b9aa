import ArgumentParser
import CatalogDiff
import CatalogJSON
import CatalogModel
import CatalogStore
import CatalogViews

struct ChangesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "changes",
        abstract: "Print one staged changeset from a revision of a catalogue to its current revision.",
        discussion: "The journal keeps at least the last \(CatalogStore.defaultJournalRevisions) revisions of each catalogue, or as many as `catalog serve --journal-revisions` set for the database; older ones need a fresh snapshot (`catalog show`)."
    )

    @Argument(help: "The catalogue's name.")
    var catalog: String

    @Option(help: "The revision the client has.")
    var since: Int

    @Flag(help: "Print the changeset JSON (docs/Changesets.md) with fromRevision and toRevision.")
    var json = false

    @OptionGroup var view: ViewOptions

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let (catalog, since) = (self.catalog, self.since)
        let changeset: Changeset
        if let definition = try view.definition() {
            do {
                changeset = try global.withDatabase(.read) { try await $0.changes(in: catalog, since: since, view: definition) }
            } catch let error as ViewError {
                throw CLIError(ViewOptions.message(error))
            }
        } else {
            changeset = try global.withDatabase(.read) { try await $0.changes(in: catalog, since: since) }
        }
        if json {
            Output.json(changeset.jsonValue)
        } else {
            print("\"\(catalog)\" from revision \(changeset.fromRevision ?? since) to \(changeset.toRevision ?? since): \(plural(changeset.stages.count, "stage"))")
            if !changeset.isEmpty { print(changeset.summary) }
        }
    }
}
