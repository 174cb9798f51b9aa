import ArgumentParser
import CatalogModel
import CatalogViews

/// `--where`, `--sort`, `--group`, `--limit` and `--offset`: a view of the catalogue
/// (docs/Views.md), the same on `show`, `watch`, `layout` and `changes` as HTTP's query parameters.
struct ViewOptions: ParsableArguments {
    // Each value is the option's even when it starts with `-` (`--sort -playCount`, `--limit -1`,
    // which then gets the view's own error).
    @Option(name: .customLong("where"), parsing: .unconditional, help: ArgumentHelp("Keep the items this holds for, e.g. 'playCount >= 1000 and status = \"published\"'.", valueName: "expression"))
    var filter: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Sort keys, - for descending, e.g. -playCount,title.", valueName: "keys"))
    var sort: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("The view's sections: section (the stored ones), none, FIELD or -FIELD.", valueName: "group"))
    var group: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("At most this many items of the view's order.", valueName: "count"))
    var limit: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Skip this many items of the view's order (layout: x,y scrolls instead).", valueName: "count"))
    var offset: String?

    /// The view, nil when no option names one; a bad option is a one-line error. With
    /// `offsetIsScroll`, an `--offset` of two numbers (`x,y`) is not the view's.
    func definition(offsetIsScroll: Bool = false) throws -> ViewDefinition? {
        let offset = offsetIsScroll && self.offset?.contains(",") == true ? nil : self.offset
        guard filter != nil || sort != nil || group != nil || limit != nil || offset != nil else { return nil }
        do {
            return try ViewDefinition(where: filter, sort: sort, group: group, limit: limit, offset: offset)
        } catch {
            throw CLIError(Self.message(error))
        }
    }

    /// The view of `catalog`, checked against its fields first.
    static func evaluate(_ definition: ViewDefinition, on catalog: Catalog) throws -> ViewResult {
        do {
            try definition.check(against: catalog)
            return try definition.evaluate(on: catalog)
        } catch {
            throw CLIError(message(error))
        }
    }

    /// `--where, at 14: expected …`: the option as the command line spells it.
    static func message(_ error: ViewError) -> String {
        "--" + error.description
    }

    /// The view's query parameters, for a server's URL.
    func query() -> [(String, String)] {
        [("where", filter), ("sort", sort), ("group", group), ("limit", limit), ("offset", offset)]
            .compactMap { name, value in value.map { (name, $0) } }
    }
}
