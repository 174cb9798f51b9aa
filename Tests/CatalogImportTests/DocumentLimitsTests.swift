import CatalogModel
import Foundation
import Testing
@testable import CatalogImport

/// Documents over the limits are refused while they are parsed, in every format, naming what is
/// over; documents within them read as before.
@Suite struct DocumentLimitsTests {
    static let small = DocumentLimits(maxItems: 10, maxSections: 2, maxDepth: 8)

    static func icons(_ count: Int) -> String {
        "[" + (0..<count).map { #"{"name": "n\#($0)", "icon": "i\#($0)"}"# }.joined(separator: ",") + "]"
    }

    static func decode(_ text: String, _ fileName: String = "f.json", limits: DocumentLimits = small) throws(ImportError) -> ImportedCatalog {
        try CatalogImporter.decode(Data(text.utf8), fileName: fileName, options: ImportOptions(limits: limits))
    }

    static func tooLarge(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            guard let error = error as? ImportError, case .tooLarge(let detail) = error.reason else { return "not tooLarge: \(error)" }
            return detail
        }
    }

    @Test func itemsAndSectionsPastTheLimitsAreRefused() throws {
        #expect(try Self.decode(Self.icons(10)).catalog.itemCount == 10)
        #expect(Self.tooLarge { _ = try Self.decode(Self.icons(11)) } == "more than 10 items in one catalogue")
        let shelves = "[" + Array(repeating: #"["a"]"#, count: 3).joined(separator: ",") + "]"
        #expect(Self.tooLarge { _ = try Self.decode(shelves, limits: DocumentLimits(maxItems: 100, maxSections: 2)) }
                == "more than 2 sections in one catalogue")
    }

    @Test func documentsMadeOfBracketsStopEarly() {
        // A million empty arrays would be ~80 MB of tree; the budget stops the parser long before.
        let brackets = "[" + Array(repeating: "[0]", count: 1_000_000).joined(separator: ",") + "]"
        let detail = Self.tooLarge { _ = try Self.decode(brackets) }
        #expect(detail?.contains("more values than a document within the limits holds") == true, "\(detail ?? "")")
        let strings = "[" + Array(repeating: #""a""#, count: 1_000_000).joined(separator: ",") + "]"
        #expect(Self.tooLarge { _ = try Self.decode(strings) } != nil)
        let deep = String(repeating: "[", count: 9) + String(repeating: "]", count: 9)
        #expect(Self.tooLarge { _ = try Self.decode(deep) }?.contains("nested more than 8 levels deep") == true)
    }

    @Test func propertyListsAreBoundedToo() throws {
        let many = (0..<2_000).map { ["name": "n\($0)", "icon": "i\($0)"] }
        for format in [PropertyListSerialization.PropertyListFormat.xml, .binary] {
            let data = try PropertyListSerialization.data(fromPropertyList: many, format: format, options: 0)
            let error = #expect(throws: ImportError.self) {
                try CatalogImporter.decode(data, fileName: "icons.plist", options: ImportOptions(limits: Self.small))
            }
            guard case .tooLarge = error?.reason else {
                Issue.record("\(format): \(String(describing: error))")
                continue
            }
            let within = try CatalogImporter.decode(data, fileName: "icons.plist", options: ImportOptions(limits: .files))
            #expect(within.catalog.itemCount == 2_000)
        }
    }

    @Test func batchesCountTheirOperationsAndWhatTheyInsert() throws {
        func batch(_ operations: Int) -> Data {
            Data((#"{"operations": ["# + Array(repeating: #"{"op": "deleteItem", "id": "x"}"#, count: operations).joined(separator: ",") + "]}").utf8)
        }
        #expect(try BatchReader.decode(batch(10), fileName: "b.json", limits: Self.small).operations.count == 10)
        let error = #expect(throws: ImportError.self) { try BatchReader.decode(batch(11), fileName: "b.json", limits: Self.small) }
        #expect(error?.description == "b.json: operations: too large: more than 10 items in one batch")
        let sections = #"{"operations": ["# + (0..<3).map { #"{"op": "insertSection", "index": 0, "section": {"id": "s\#($0)", "kind": "icons"}}"# }
            .joined(separator: ",") + "]}"
        #expect(throws: ImportError.self) { try BatchReader.decode(Data(sections.utf8), fileName: "b.json", limits: Self.small) }
    }

    @Test func theBudgetLeavesRoomForFullItems() {
        // Every field of a video card, a size, and a section around them: within budget at the limit.
        let video = #"{"id": "v", "kind": "video", "title": "t", "cover": "c", "playCount": 1, "likeCount": 2, "status": "published", "statusText": "s", "size": [1, 2]}"#
        let limits = DocumentLimits(maxItems: 1_000, maxSections: 1)
        let items = (0..<1_000).map { video.replacingOccurrences(of: #""id": "v""#, with: #""id": "v\#($0)""#) }.joined(separator: ",")
        let file = #"{"catalog": "c", "sections": [{"id": "s", "kind": "videos", "items": ["# + items + "]}]}"
        #expect(throws: Never.self) { try Self.decode(file, limits: limits) }
    }
}
