import Foundation
import Testing
import CatalogModel

/// The documents that list the item fields list exactly `ItemField`'s, in its order: the `map`
/// parameter's pattern in openapi.json, `--map`'s list and each kind's fields in
/// docs/Catalogue-files.md. A new field that is missing from a document fails here.
@Suite struct FieldListDocumentsTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The backquoted words of `text`.
    static func codeSpans(_ text: Substring) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    @Test func openAPIsMapPatternListsEveryField() throws {
        let openapi = try Self.text("Sources/CatalogServer/openapi.json")
        let pattern = "^(" + ItemField.allCases.map(\.rawValue).joined(separator: "|") + ")=.+$"
        #expect(openapi.contains("\"pattern\": \"\(pattern)\""), "openapi.json's map pattern should be \(pattern)")
    }

    @Test func theCatalogueFilesPageListsEveryField() throws {
        let page = try Self.text("docs/Catalogue-files.md")
        // `--map`'s sentence: "fills a field of the model (`id`, …)".
        let map = try #require(page.range(of: "fills a field of the model ("))
        let list = page[map.upperBound...].prefix { $0 != ")" }
        #expect(Self.codeSpans(list) == ItemField.allCases.map(\.rawValue))
        // Each kind's line: "- `video`: `title`, `cover` (…), …".
        for kind in ItemKind.allCases {
            let line = try #require(page.range(of: "  - `\(kind.rawValue)`:"), "no line for \(kind)")
            let rest = page[line.upperBound...]
            // The line and its continuation lines, up to the next item of either list.
            let end = [rest.range(of: "\n  - ")?.lowerBound, rest.range(of: "\n- ")?.lowerBound].compactMap { $0 }.min() ?? rest.endIndex
            // Backquoted words that are fields, in order (a status's values are not fields).
            let named = Self.codeSpans(rest[..<end]).filter { ItemField(rawValue: $0) != nil }
            #expect(named == ItemField.content(of: kind).map(\.rawValue), "\(kind)")
        }
    }
}
