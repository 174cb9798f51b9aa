import ArgumentParser
import CatalogImport
import CatalogModel
import Foundation

extension SectionKind: ExpressibleByArgument {}

struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Write a deterministic synthetic native catalogue, for benchmarks and tests.",
        discussion: "The same arguments always write the same file. The extension (.json or .plist) picks the format."
    )

    @Option(help: "How many items.")
    var items: Int

    @Option(help: "How many sections the items are spread over.")
    var sections: Int = 1

    @Option(help: "Section kind: videos, bookshelf or icons.")
    var kind: SectionKind = .videos

    @Option(help: "The catalogue's name.")
    var name: String = "generated"

    @Option(help: "Seed of the pseudo-random content.")
    var seed: UInt64 = 1

    @Option(help: "The file to write (.json or .plist).")
    var out: String

    @Flag(help: "Print JSON: {\"file\", \"catalog\", \"sections\", \"items\"}.")
    var json = false

    func validate() throws {
        guard items >= 0 else { throw ValidationError("--items must be ≥ 0") }
        guard sections > 0 else { throw ValidationError("--sections must be ≥ 1") }
    }

    func run() throws {
        let catalog = Catalog.generated(name: name, items: items, sections: sections, kind: kind, seed: seed)
        do {
            try CatalogExporter.write(catalog, to: URL(fileURLWithPath: out))
        } catch {
            throw CLIError("cannot write \(out): \(error.localizedDescription)")
        }
        if json {
            Output.json(.object([("file", .string(out)), ("catalog", .string(name)),
                                 ("sections", .integer(sections)), ("items", .integer(items))]))
            return
        }
        print("Wrote \(out): catalogue \"\(name)\", \(plural(sections, "\(kind.rawValue) section")), \(plural(items, "item")).")
    }
}
