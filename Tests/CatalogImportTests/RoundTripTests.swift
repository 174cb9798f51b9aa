import CatalogImport
import CatalogModel
import Foundation
import Testing

@Suite("Export and import round trips")
struct RoundTripTests {
    @Test("native JSON and plist (XML and binary) read back exactly", arguments: SectionKind.allCases)
    func roundTrip(kind: SectionKind) throws {
        let catalog = Catalog.generated(name: "rt", items: 300, sections: 7, kind: kind, seed: 3)
        let json = try CatalogImporter.decode(CatalogExporter.json(catalog), fileName: "rt.json")
        #expect(json.catalog == catalog)
        #expect(json.report.derivedIDs == 0 && json.report.ignoredKeyCount == 0)
        let xml = try CatalogImporter.decode(CatalogExporter.propertyList(catalog), fileName: "rt.plist")
        #expect(xml.catalog == catalog)
        let binary = try CatalogImporter.decode(CatalogExporter.propertyList(catalog, format: .binary), fileName: "rt.plist")
        #expect(binary.catalog == catalog)
    }

    @Test("the revision key written by `show --json` is known, not ignored")
    func revisionKey() throws {
        var catalog = Catalog.generated(name: "rev", items: 10, sections: 2, kind: .icons)
        catalog.revision = 12
        let imported = try CatalogImporter.decode(CatalogExporter.json(catalog, includeRevision: true), fileName: "x.json")
        #expect(imported.report.ignoredKeyCount == 0)
        #expect(imported.catalog.sections == catalog.sections)
    }

    @Test("strings with quotes, backslashes, control characters and non-ASCII survive")
    func escaping() throws {
        let title = "Quote \" backslash \\ tab \t newline \n bell \u{7} — 書 🚲 K\u{212A}"
        let catalog = Catalog(name: "esc", sections: [Section(id: "s", kind: .bookshelf, items: [
            Item(id: "b/1", content: .book(Book(title: title, cover: "c/1"))),
        ])])
        #expect(try CatalogImporter.decode(CatalogExporter.json(catalog), fileName: "e.json").catalog == catalog)
        #expect(try CatalogImporter.decode(CatalogExporter.propertyList(catalog), fileName: "e.plist").catalog == catalog)
    }

    @Test("the format is sniffed when the extension says nothing")
    func sniffing() throws {
        let catalog = Catalog.generated(name: "sniff", items: 5, sections: 1, kind: .icons)
        #expect(try CatalogImporter.decode(CatalogExporter.json(catalog), fileName: "data.txt").report.format == .json)
        #expect(try CatalogImporter.decode(CatalogExporter.propertyList(catalog, format: .binary), fileName: "data").report.format == .plist)
        #expect(try CatalogImporter.decode(CatalogExporter.propertyList(catalog), fileName: "data").report.format == .plist)
        #expect(try CatalogImporter.decode(CatalogExporter.json(catalog), fileName: "v1.2/data").report.format == .json,
                "a dot in a folder name is not an extension")
    }

    @Test("derived ids skip ids the file uses explicitly")
    func derivedIDsAvoidExplicitOnes() throws {
        let json = #"{"sections": [{"kind": "bookshelf", "capacity": 5, "items": [{"title": "A", "cover": "x"}, {"id": "x~2", "title": "B", "cover": "y"}, {"title": "C", "cover": "x"}, {"id": "s9", "title": "D", "cover": "z"}]}, {"id": "s2", "kind": "icons"}, {"kind": "icons"}]}"#
        let catalog = try CatalogImporter.decode(Data(json.utf8), fileName: "ids.json").catalog
        #expect(catalog.sections[0].items.map(\.id) == ["x", "x~2", "x~3", "s9"])
        #expect(catalog.sections.map(\.id) == ["s1", "s2", "s3"])
        try catalog.validate()
    }
}
