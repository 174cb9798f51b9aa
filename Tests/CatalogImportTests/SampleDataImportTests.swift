import CatalogImport
import CatalogModel
import Foundation
import Testing

/// The package's SampleData folder, found from this file.
let sampleData = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("SampleData")

@Suite("Importing the sample catalogues")
struct SampleDataImportTests {
    private func read(_ name: String, _ options: ImportOptions = ImportOptions()) throws -> ImportedCatalog {
        try CatalogImporter.read(contentsOf: sampleData.appendingPathComponent(name), options: options)
    }

    @Test("an XML plist array of {name, icon} is one icons section with ids from the icon names")
    func xmlIcons() throws {
        let imported = try read("icons.plist")
        #expect(imported.report.format == .plist)
        #expect(imported.report.shape == .icons)
        #expect(imported.catalog.name == "icons")
        try #require(imported.catalog.sections.count == 1)
        let section = imported.catalog.sections[0]
        #expect(section.kind == .icons && section.id == "s1")
        try #require(section.items.count >= 9)
        #expect(section.items[0] == Item(id: "camera", content: .icon(Icon(name: "Camera", icon: "camera"))))
        #expect(imported.report.derivedIDs == section.items.count)
    }

    @Test("a binary plist reads like an XML one")
    func binaryIcons() throws {
        let data = try Data(contentsOf: sampleData.appendingPathComponent("icons-binary.plist"))
        #expect(data.starts(with: Data("bplist".utf8)))
        let imported = try read("icons-binary.plist")
        #expect(imported.report.shape == .icons)
        #expect(imported.catalog.itemCount >= 9)
    }

    @Test("nested arrays of covers become shelves of 4, and a repeated cover gets an occurrence suffix")
    func shelfMock() throws {
        let imported = try read("shelf-mock.json")
        let catalog = imported.catalog
        #expect(imported.report.shape == .bookshelf)
        #expect(catalog.sections.map(\.items.count) == [3, 4, 3, 3, 2, 4, 2])
        #expect(catalog.sections.allSatisfy { $0.kind == .bookshelf && $0.capacity == 4 })
        #expect(catalog.sections.map(\.id) == ["s1", "s2", "s3", "s4", "s5", "s6", "s7"])
        #expect(catalog.sections[3].items[0].id == "11")
        #expect(catalog.sections[6].items[1].id == "11~2")
        #expect(catalog.sections[6].items[1].content == .book(Book(title: "11", cover: "11")))
        #expect(imported.report.duplicates == 1)
        try catalog.validate()
    }

    @Test("video dictionaries with alias keys, and unknown keys counted")
    func videos() throws {
        let imported = try read("videos.json")
        #expect(imported.report.shape == .videos)
        let items = imported.catalog.sections[0].items
        try #require(items.count >= 20)
        guard case .video(let first) = items[0].content else {
            Issue.record("expected a video")
            return
        }
        #expect(first.cover.hasPrefix("https://"))
        #expect(items[0].id == first.cover, "ids derive from the cover")
        #expect(first.playCount == 182_340 && first.likeCount == 9_120)
        #expect(items[0].size == Size(width: 180, height: 256))
        #expect(items.contains { if case .video(let v) = $0.content { v.statusText != nil } else { false } })
        #expect(imported.report.ignoredKeys == ["author_id": 4])
    }

    @Test("native bookshelf: explicit ids, full and partly filled shelves, shared covers")
    func nativeBookshelf() throws {
        let catalog = try read("bookshelf.json").catalog
        #expect(catalog.name == "bookshelf")
        #expect(catalog.sections.count >= 6)
        #expect(catalog.sections.allSatisfy { $0.capacity == 4 })
        #expect(catalog.sections.contains { $0.isFull })
        #expect(catalog.sections.contains { !$0.isFull })
        let covers = catalog.sections.flatMap(\.items).map(\.content.naturalKey)
        #expect(Set(covers).count < covers.count, "some books share a cover")
    }

    @Test("one native catalogue mixes all three kinds")
    func mixed() throws {
        let catalog = try read("home.json").catalog
        #expect(Set(catalog.sections.map(\.kind)) == Set(SectionKind.allCases))
    }

    @Test("re-reading a file yields the same ids", arguments: ["icons.plist", "shelf-mock.json", "videos.json", "bookshelf.json"])
    func deterministic(file: String) throws {
        #expect(try read(file).catalog == (try read(file)).catalog)
    }

    @Test("--catalog and --kind override what the file implies")
    func overrides() throws {
        let imported = try read("shelf-mock.json", ImportOptions(catalogName: "mine", shape: .bookshelf, shelfCapacity: 6))
        #expect(imported.catalog.name == "mine")
        #expect(imported.catalog.sections.allSatisfy { $0.capacity == 6 })
    }
}
