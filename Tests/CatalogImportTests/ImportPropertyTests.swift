import CatalogModel
import Foundation
import Testing
@testable import CatalogImport

/// Random catalogues and random damage: whatever the input, the importer returns the catalogue
/// or an ``ImportError`` — it never traps, and what it returns is valid.
@Suite("Import properties")
struct ImportPropertyTests {
    /// A random valid catalogue with awkward strings, empty sections and optional fields.
    private func randomCatalog(_ random: inout SplitMix64) -> Catalog {
        let strings = ["a", "Ünïcödé", "書架", "🚲 bike", "quote \"q\"", "back\\slash", "tab\tnl\n", "K\u{212A}", " ", "x~2"]
        func text() -> String { strings[Int(random.next() % UInt64(strings.count))] + "\(random.next() % 50)" }
        var sections: [Section] = []
        var itemNumber = 0
        for s in 0..<Int(random.next() % 6) {
            let kind = SectionKind.allCases[Int(random.next() % 3)]
            var section = Section(id: "sec\(s)-\(text())", kind: kind, title: random.next() % 2 == 0 ? text() : nil,
                                  capacity: kind == .bookshelf ? Int(1 + random.next() % 6) : nil)
            let limit = section.capacity ?? 8
            for _ in 0..<Int(random.next() % UInt64(limit + 1)) {
                itemNumber += 1
                let content: ItemContent = switch kind {
                case .videos: .video(Video(title: text(), cover: text(), playCount: Int(random.next() % 1_000_000),
                                           likeCount: Int(random.next() % 1000),
                                           status: VideoStatus.allCases[Int(random.next() % 5)],
                                           statusText: random.next() % 3 == 0 ? text() : nil))
                case .bookshelf: .book(Book(title: text(), cover: text(), author: random.next() % 2 == 0 ? text() : nil))
                case .icons: .icon(Icon(name: text(), icon: text()))
                }
                let size = random.next() % 2 == 0 ? Size(width: Double(random.next() % 400), height: Double(random.next() % 400) + 0.5) : nil
                section.items.append(Item(id: "item\(itemNumber)-\(text())", content: content, size: size))
            }
            sections.append(section)
        }
        return Catalog(name: "random", sections: sections)
    }

    @Test("500 random catalogues survive JSON, XML plist and binary plist unchanged")
    func roundTrips() throws {
        var random = SplitMix64(seed: 2026)
        for _ in 0..<500 {
            let catalog = randomCatalog(&random)
            try catalog.validate()
            #expect(try CatalogImporter.decode(CatalogExporter.json(catalog), fileName: "r.json").catalog == catalog)
            #expect(try CatalogImporter.decode(CatalogExporter.json(catalog, pretty: false), fileName: "r.json").catalog == catalog)
            #expect(try CatalogImporter.decode(CatalogExporter.propertyList(catalog), fileName: "r.plist").catalog == catalog)
            #expect(try CatalogImporter.decode(CatalogExporter.propertyList(catalog, format: .binary), fileName: "r.plist").catalog == catalog)
        }
    }

    @Test("every truncation of a JSON catalogue is refused with an error, never a trap")
    func truncations() throws {
        var random = SplitMix64(seed: 7)
        var catalog = randomCatalog(&random)
        while catalog.itemCount < 3 { catalog = randomCatalog(&random) }
        let data = CatalogExporter.json(catalog, pretty: false)
        for length in 0..<data.count {
            do {
                _ = try CatalogImporter.decode(data.prefix(length), fileName: "cut.json")
                Issue.record("a catalogue cut at \(length) of \(data.count) bytes imported")
            } catch {
                #expect(error.file == "cut.json")
            }
        }
    }

    @Test("random byte damage gives the catalogue or an ImportError, and anything imported is valid")
    func byteDamage() throws {
        var random = SplitMix64(seed: 99)
        var imported = 0
        for _ in 0..<2_000 {
            let catalog = randomCatalog(&random)
            var data = switch random.next() % 3 {
            case 0: CatalogExporter.json(catalog)
            case 1: CatalogExporter.propertyList(catalog, format: .binary)
            default: CatalogExporter.propertyList(catalog, format: .xml)
            }
            guard !data.isEmpty else { continue }
            for _ in 0..<Int(1 + random.next() % 3) {
                let offset = data.startIndex + Int(random.next() % UInt64(data.count))
                data[offset] = UInt8(truncatingIfNeeded: random.next())
            }
            do {
                let result = try CatalogImporter.decode(data, fileName: "damaged")
                try result.catalog.validate()
                imported += 1
            } catch let error as ImportError {
                #expect(!error.description.isEmpty)
            }
        }
        #expect(imported < 2_000, "damage must be noticed at least sometimes")
    }
}
