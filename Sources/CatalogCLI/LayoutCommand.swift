import ArgumentParser
import CatalogImport
import CatalogJSON
import CatalogLayout
import CatalogModel
import CatalogStore
import Foundation

struct LayoutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "layout",
        abstract: "Lay out a catalogue (docs/Layouts.md): print every element's attributes, or draw a picture.",
        discussion: """
            CATALOG is a catalogue in the database, or a catalogue file (.json or .plist). \
            --config names a LAYOUT.json file (or is the JSON itself), e.g. \
            {"style": "shelf", "itemSize": [80, 120], "sectionInset": [10, 10, 10, 10], "headerHeight": 30}. \
            Styles: flow, waterfall, circular, shelf, carousel.
            """
    )

    @Argument(help: "A catalogue name in the database, or a catalogue file.")
    var catalog: String

    @Option(help: "The layout configuration: a LAYOUT.json file, or the JSON itself.")
    var config: String

    @Option(help: "The viewport width in points.")
    var width: Double

    @Option(help: "The viewport height in points.")
    var height: Double

    @Flag(help: "Only the elements that intersect the viewport at the offset.")
    var visible = false

    @Flag(help: "Print JSON: {\"contentSize\": [w, h], \"elements\": [{\"kind\", \"indexPath\", \"frame\", …}]}.")
    var json = false

    @Option(help: ArgumentHelp("Also write an SVG picture of the layout to this file.", valueName: "file"))
    var svg: String?

    /// The view to lay out; its `--offset` of two numbers (x,y) is the scroll position (the
    /// viewport's origin) instead.
    @OptionGroup var view: ViewOptions

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let configuration = try Self.readConfiguration(config)
        let definition = try view.definition(offsetIsScroll: true)
        let stored = try loadCatalog()
        let model = try definition.map { try ViewOptions.evaluate($0, on: stored).catalog } ?? stored
        let input = LayoutInput(model)
        let scroll = view.offset?.contains(",") == true ? view.offset : nil
        let layout = try Layout(input, configuration: configuration, viewportSize: Size(width: width, height: height),
                                contentOffset: try Self.parseOffset(scroll))
        let elements = visible ? layout.elements(in: layout.visibleRect) : layout.allElements
        if let svg {
            let picture = LayoutPicture(layout: layout, input: input).svg
            do {
                try Data(picture.utf8).write(to: URL(fileURLWithPath: svg))
            } catch {
                throw CLIError("cannot write \(svg): \(error.localizedDescription)")
            }
        }
        if json {
            Output.json(Documents.layout(layout, elements))
            return
        }
        print(Self.describe(layout, elements, catalog: model.name))
        if let svg { print("\nPicture written to \(svg).") }
    }

    /// The catalogue file at `catalog` if there is one, else the catalogue of that name in the database.
    private func loadCatalog() throws -> Catalog {
        let looksLikeFile = catalog.hasSuffix(".json") || catalog.hasSuffix(".plist") || catalog.contains("/")
        if looksLikeFile || FileManager.default.fileExists(atPath: catalog) {
            return try CatalogImporter.read(contentsOf: URL(fileURLWithPath: catalog)).catalog
        }
        let name = catalog
        return try global.withDatabase(.read) { try await $0.catalog(named: name) }
    }

    /// A configuration from a file, or from the JSON itself when the argument starts with `{`.
    static func readConfiguration(_ argument: String) throws -> LayoutConfiguration {
        let isInline = argument.trimmingCharacters(in: .whitespaces).hasPrefix("{")
        let source = isInline ? "--config" : argument
        let data: Data
        if isInline {
            data = Data(argument.utf8)
        } else {
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: argument))
            } catch {
                throw CLIError("cannot read layout configuration \(argument): no such file or not readable")
            }
        }
        do {
            return try Documents.layoutConfiguration(data)
        } catch {
            throw CLIError("\(source): \(error)")
        }
    }

    static func parseOffset(_ text: String?) throws -> Point {
        guard let text else { return .zero }
        let parts = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let x = parts[0], let y = parts[1], x.isFinite, y.isFinite else {
            throw CLIError("--offset: expected two numbers x,y such as 0,120, found \"\(text)\"")
        }
        return Point(x: x, y: y)
    }

    static func describe(_ layout: Layout, _ elements: [LayoutAttributes], catalog: String) -> String {
        let c = layout.configuration
        var lines = ["Catalogue \"\(catalog)\" · \(c.style.rawValue) layout · viewport \(number(layout.viewportSize.width))×\(number(layout.viewportSize.height))"
                     + " at \(layout.contentOffset) · content \(number(layout.contentSize.width))×\(number(layout.contentSize.height))"
                     + " · \(plural(elements.count, "element"))", ""]
        let rows = elements.map { e in
            [e.kind.rawValue, "\(e.indexPath)",
             "(" + [e.frame.x, e.frame.y, e.frame.width, e.frame.height].map(number).joined(separator: ", ") + ")", number(e.scale), number(e.alpha), "\(e.zIndex)"]
        }
        lines.append(Output.table(["KIND", "INDEX PATH", "FRAME (x, y, w, h)", "SCALE", "ALPHA", "Z"], rows, rightAligned: [3, 4, 5]))
        return lines.joined(separator: "\n")
    }

    /// Three decimals at most (a number too large for that as it is: `value * 1000` could overflow).
    private static func number(_ value: Double) -> String {
        (abs(value) < 1e15 ? (value * 1000).rounded() / 1000 : value).formatted
    }
}
