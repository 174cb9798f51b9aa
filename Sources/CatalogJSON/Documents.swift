import CatalogDiff
import CatalogImport
import CatalogLayout
import CatalogModel
import CatalogStore
import Foundation

/// The JSON documents the command line prints with `--json` and the HTTP API sends.
package enum Documents {
    /// `catalog list --json`, `GET /catalogs`: `[{"name", "revision", "sections", "items"}]`.
    package static func summaries(_ summaries: [CatalogSummary]) -> OrderedJSON {
        .array(summaries.map {
            .object([("name", .string($0.name)), ("revision", .integer($0.revision)),
                     ("sections", .integer($0.sections)), ("items", .integer($0.items))])
        })
    }

    /// What `import`, `apply` and `move` print and the API's writes answer: `{"revision", "changeset"}`.
    package static func write(_ result: WriteResult) -> OrderedJSON {
        .object([("revision", .integer(result.revision)), ("changeset", result.changeset.jsonValue)])
    }

    /// docs/Layouts.md's layout document: `{"contentSize": [w, h], "elements": [{"kind", "indexPath", "frame", …}]}`.
    package static func layout(_ layout: Layout, _ elements: [LayoutAttributes]) -> OrderedJSON {
        self.layout(layout, elements, describing: nil)
    }

    /// The layout document; with `catalog` (the one laid out), its revision too, and each element
    /// says what it shows: a cell its item's `id`, `title` (the text a cell shows first) and
    /// `section` (its section's id), a header, footer or decoration its section's `id`, `title`,
    /// item `count` and `capacity`; a circular layout gives its `fadePoint` (``Layout/fadePoint``),
    /// so that a page animates cells in and out as a collection view would; and `dependsOnOffset`
    /// (``Layout/dependsOnContentOffset``) says whether scrolling changes the attributes.
    package static func layout(_ layout: Layout, _ elements: [LayoutAttributes], describing catalog: Catalog?) -> OrderedJSON {
        var top: [(String, OrderedJSON)] = []
        if let catalog { top.append(("revision", .integer(catalog.revision))) }
        top.append(("contentSize", .array([.double(layout.contentSize.width), .double(layout.contentSize.height)])))
        if catalog != nil, let point = layout.fadePoint { top.append(("fadePoint", .array([.double(point.x), .double(point.y)]))) }
        if catalog != nil { top.append(("dependsOnOffset", .bool(layout.dependsOnContentOffset))) }
        top.append(("elements", .array(elements.map { element in
            var fields: [(String, OrderedJSON)] = [
                ("kind", .string(element.kind.rawValue)),
                ("indexPath", .array([.integer(element.indexPath.section), .integer(element.indexPath.item)])),
                ("frame", .array([element.frame.x, element.frame.y, element.frame.width, element.frame.height].map(OrderedJSON.double))),
                ("scale", .double(element.scale)),
                ("alpha", .double(element.alpha)),
                ("zIndex", .integer(element.zIndex)),
                ("hidden", .bool(element.hidden)),
            ]
            if let catalog, catalog.sections.indices.contains(element.indexPath.section) {
                let section = catalog.sections[element.indexPath.section]
                if element.kind == .cell, section.items.indices.contains(element.indexPath.item) {
                    let item = section.items[element.indexPath.item]
                    fields += [("id", .string(item.id)), ("title", .string(item.content.displayText)), ("section", .string(section.id))]
                } else if element.kind != .cell {
                    fields += [("id", .string(section.id)), ("title", .string(section.displayTitle)),
                               ("count", .integer(section.items.count))]
                    if let capacity = section.capacity { fields.append(("capacity", .integer(capacity))) }
                }
            }
            return .object(fields)
        })))
        return .object(top)
    }

    /// Why strict JSON was refused before decoding: not UTF-8 text, or not JSON (with line and
    /// column), or a name twice in one object.
    package struct StrictJSONError: Error, CustomStringConvertible {
        package var description: String
    }

    /// Checks `data` with the product's strict JSON parser — UTF-8, syntax errors with a line and
    /// column, a name twice in one object refused, as in every document the product reads — so
    /// that a decoder that would keep one of two equal names never sees such a document.
    package static func checkStrictJSON(_ data: Data) throws(StrictJSONError) {
        guard String(data: data, encoding: .utf8) != nil else { throw StrictJSONError(description: "bytes that are not UTF-8 text") }
        let result = data.withUnsafeBytes { bytes in Result { () throws(JSONParser.Failure) in try JSONParser.parse(bytes) } }
        if case .failure(let failure) = result { throw StrictJSONError(description: failure.message) }
    }

    /// A changeset file (`catalog validate`) or an event's changeset (`catalog watch`): strict
    /// JSON first (``checkStrictJSON(_:)``), then the format of docs/Changesets.md.
    package static func changeset(_ data: Data) throws -> Changeset {
        try checkStrictJSON(data)
        return try JSONDecoder().decode(Changeset.self, from: data)
    }

    /// A `LAYOUT.json` document, as the command line's `--config` and the API's `config=` give
    /// it: strict JSON (``checkStrictJSON(_:)``), then every key and value checked
    /// (``LayoutConfiguration``).
    package static func layoutConfiguration(_ data: Data) throws(LayoutConfigurationError) -> LayoutConfiguration {
        let expected = "a JSON object such as {\"style\": \"flow\"}"
        do {
            try checkStrictJSON(data)
        } catch {
            throw LayoutConfigurationError(key: "", expected: expected, found: error.description)
        }
        do {
            return try JSONDecoder().decode(LayoutConfiguration.self, from: data)
        } catch let error as LayoutConfigurationError {
            throw error
        } catch {
            throw LayoutConfigurationError(key: "", expected: expected)
        }
    }
}
