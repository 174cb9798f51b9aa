import ArgumentParser
import CatalogModel
import CatalogStore

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the database: SQLite's integrity and foreign keys, section positions 0..<n, distinct item positions in every section, and capacities.",
        discussion: "Exit status 0 when the database is sound, 1 with the first problem otherwise. Use it after a crash."
    )

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let summaries = try global.withDatabase(.read) { store in
            try await store.checkIntegrity()
            return try await store.summaries()
        }
        print("ok: \(plural(summaries.count, "catalogue")), \(plural(summaries.reduce(0) { $0 + $1.sections }, "section")), "
              + "\(plural(summaries.reduce(0) { $0 + $1.items }, "item")); integrity check passed; positions in order")
    }
}
