import ArgumentParser
import CatalogImport
import CatalogModel
import CatalogStore
import CatalogViews

struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one catalogue's sections and items.",
        discussion: "With --json the output is the native catalogue format plus `revision`, so it imports again unchanged. With --where, --sort, --group, --limit or --offset, a view of the catalogue (docs/Views.md): its sections and items, and with --json also `total`, the items the filter keeps."
    )

    @Argument(help: "The catalogue's name.")
    var catalog: String

    @Flag(help: "Print the native JSON format (with `revision`).")
    var json = false

    @OptionGroup var view: ViewOptions

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let name = self.catalog
        let definition = try view.definition()
        let stored = try global.withDatabase(.read) { try await $0.catalog(named: name) }
        if let definition {
            let result = try ViewOptions.evaluate(definition, on: stored)
            if json {
                guard case .object(var members) = CatalogExporter.jsonValue(result.catalog, includeRevision: true) else { return }
                members.append(("total", .integer(result.total)))
                Output.json(.object(members))
            } else {
                print(Self.describe(result.catalog) + "\n\n\(plural(result.total, "item")) match")
            }
            return
        }
        let catalog = stored
        if json {
            Output.data(CatalogExporter.json(catalog, includeRevision: true))
        } else {
            let description = Self.describe(catalog)
            if let following = try Following.of(global)[name] {
                // Under the heading: whose copy this is, and where it stands on the server.
                var lines = description.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                lines.insert(following.line, at: 1)
                print(lines.joined(separator: "\n"))
            } else {
                print(description)
            }
        }
    }

    /// The human view: a heading, then each section with its items in columns.
    static func describe(_ catalog: Catalog, maxItemsPerSection: Int = .max) -> String {
        var lines = ["Catalogue \(visible(catalog.name)) · revision \(catalog.revision) · "
                     + "\(plural(catalog.sections.count, "section")) · \(plural(catalog.itemCount, "item"))"]
        for (s, section) in catalog.sections.enumerated() {
            let fill = section.capacity.map { "\(section.items.count)/\($0)\(section.isFull ? " full" : "")" }
                ?? plural(section.items.count, "item")
            let title = section.title.map { " " + visible($0) } ?? ""
            lines.append("")
            lines.append("[\(s)] \(escapingControlCharacters(section.id)) · \(section.kind.rawValue)\(title) · \(fill)")
            let shown = section.items.prefix(maxItemsPerSection)
            if !shown.isEmpty {
                let rows = shown.enumerated().map { i, item in ["\(i)", item.id, item.content.displayText, details(item)] }
                lines.append(Output.table(["#", "ID", "TITLE", "DETAILS"], rows, rightAligned: [0])
                    .split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
            }
            if section.items.count > shown.count {
                lines.append("    … and \(section.items.count - shown.count) more")
            }
        }
        return lines.joined(separator: "\n")
    }

    private static func details(_ item: Item) -> String {
        var parts: [String]
        switch item.content {
        case .video(let v):
            parts = [v.status.rawValue + (v.statusText.map { " (\($0))" } ?? ""), "\(v.playCount) plays", "\(v.likeCount) likes"]
        case .book(let b):
            parts = ["cover \(b.cover)"] + (b.author.map { [$0] } ?? [])
        case .icon(let i):
            parts = ["icon \(i.icon)"]
        }
        if let size = item.size { parts.append("\(size.width.formatted)×\(size.height.formatted)") }
        return parts.joined(separator: " · ")
    }
}

extension Double {
    /// `180` rather than `180.0`; fractions as they are.
    var formatted: String {
        self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self)
    }
}
