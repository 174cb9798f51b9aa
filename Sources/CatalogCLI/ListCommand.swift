import ArgumentParser
import CatalogImport
import CatalogJSON
import CatalogStore

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the catalogues in the database with their revisions and sizes."
    )

    @Flag(help: "Print JSON: [{\"name\", \"revision\", \"sections\", \"items\"}].")
    var json = false

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let summaries = try global.withDatabase(.read) { try await $0.summaries() }
        if json {
            Output.json(Documents.summaries(summaries))
        } else if summaries.isEmpty {
            print("No catalogues in \(global.displayName).")
        } else {
            print(Self.table(summaries))
        }
    }

    /// The human listing: name, revision, sections, items in aligned columns.
    static func table(_ summaries: [CatalogSummary]) -> String {
        Output.table(["NAME", "REVISION", "SECTIONS", "ITEMS"],
                     summaries.map { [$0.name, "\($0.revision)", "\($0.sections)", "\($0.items)"] },
                     rightAligned: [1, 2, 3])
    }

    /// `[{"name", "revision", "sections", "items"}]`, as docs/Command-line.md gives it.
}
