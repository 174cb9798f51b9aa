import CatalogDiff
import CatalogImport
import CatalogLayout
import CatalogStore
import Foundation

/// The JSON documents the command line prints with `--json` and the HTTP API sends.
public enum Documents {
    /// `catalog list --json`, `GET /catalogs`: `[{"name", "revision", "sections", "items"}]`.
    public static func summaries(_ summaries: [CatalogSummary]) -> OrderedJSON {
        .array(summaries.map {
            .object([("name", .string($0.name)), ("revision", .integer($0.revision)),
                     ("sections", .integer($0.sections)), ("items", .integer($0.items))])
        })
    }

    /// What `import`, `apply` and `move` print and the API's writes answer: `{"revision", "changeset"}`.
    public static func write(_ result: WriteResult) -> OrderedJSON {
        .object([("revision", .integer(result.revision)), ("changeset", result.changeset.jsonValue)])
    }

    /// docs/Layouts.md's layout document: `{"contentSize": [w, h], "elements": [{"kind", "indexPath", "frame", …}]}`.
    public static func layout(_ layout: Layout, _ elements: [LayoutAttributes]) -> OrderedJSON {
        .object([
            ("contentSize", .array([.double(layout.contentSize.width), .double(layout.contentSize.height)])),
            ("elements", .array(elements.map { element in
                .object([
                    ("kind", .string(element.kind.rawValue)),
                    ("indexPath", .array([.integer(element.indexPath.section), .integer(element.indexPath.item)])),
                    ("frame", .array([element.frame.x, element.frame.y, element.frame.width, element.frame.height].map(OrderedJSON.double))),
                    ("scale", .double(element.scale)),
                    ("alpha", .double(element.alpha)),
                    ("zIndex", .integer(element.zIndex)),
                    ("hidden", .bool(element.hidden)),
                ])
            })),
        ])
    }

    /// A `LAYOUT.json` document, as the command line's `--config` and the API's `config=` give
    /// it: strict JSON (a repeated key is refused, as in every document the product reads), then
    /// every key and value checked (``LayoutConfiguration``).
    public static func layoutConfiguration(_ data: Data) throws(LayoutConfigurationError) -> LayoutConfiguration {
        let expected = "a JSON object such as {\"style\": \"flow\"}"
        guard String(data: data, encoding: .utf8) != nil else {
            throw LayoutConfigurationError(key: "", expected: expected, found: "bytes that are not UTF-8 text")
        }
        do {
            _ = try data.withUnsafeBytes { bytes in try JSONParser.parse(bytes) }
        } catch {
            throw LayoutConfigurationError(key: "", expected: expected, found: (error as? JSONParser.Failure)?.message ?? "\(error)")
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
