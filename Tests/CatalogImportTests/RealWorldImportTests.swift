import CatalogModel
import Foundation
import Testing
@testable import CatalogImport

/// Files as real apps ship them (docs/Catalogue-files.md), from `RealWorld/`: each in JSON, XML plist and binary
/// plist (the plists made from the JSON), with the options a user passes, and its catalogue or
/// its exact error.
@Suite("Importing files as real apps ship them")
struct RealWorldImportTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("RealWorld")

    /// The file in each format: its JSON, and XML and binary plists of the same value.
    static func variants(_ name: String) throws -> [(String, Data)] {
        let json = try Data(contentsOf: folder.appendingPathComponent(name))
        let value = try JSONSerialization.jsonObject(with: json)
        let base = String(name.dropLast(5))
        return [("\(base).json", json),
                ("\(base).plist", try PropertyListSerialization.data(fromPropertyList: value, format: .xml, options: 0)),
                ("\(base).plist", try PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0))]
    }

    static func read(_ name: String, _ options: ImportOptions = ImportOptions()) throws -> [ImportedCatalog] {
        try variants(name).map { fileName, data in try CatalogImporter.decode(data, fileName: fileName, options: options) }
    }

    static func error(_ name: String, _ options: ImportOptions = ImportOptions()) throws -> [String] {
        try variants(name).map { fileName, data in
            do {
                _ = try CatalogImporter.decode(data, fileName: fileName, options: options)
                return "no error"
            } catch let error as ImportError {
                return error.message + " @ " + error.path
            }
        }
    }

    static func map(_ pairs: String...) throws -> [ItemField: String] { try ImportOptions.fieldMap(pairs) }

    @Test func aWrappedListWithIntegerIDsAndOtherKeyNames() throws {
        // Without a map: the shape is found and said, and the error says what to pass.
        for message in try Self.error("wrapped-list.json") {
            #expect(message == "missing; expected a string (read as videos because items have `title`; "
                    + "pass --map cover=KEY to read it from another key, or --kind) @ [0].cover")
        }
        for imported in try Self.read("wrapped-list.json", ImportOptions(fieldMap: Self.map("cover=src", "likeCount=loveNumber"))) {
            #expect(imported.report.root == "list" && imported.report.shape == .videos && imported.report.integerIDs == 2)
            #expect(imported.catalog.sections[0].items == [
                Item(id: "1", content: .video(Video(title: "Sunset over the bay", cover: "https://img.example.com/p/1.jpg", likeCount: 123))),
                Item(id: "2", content: .video(Video(title: "Morning market", cover: "https://img.example.com/p/2.jpg", likeCount: 45))),
            ])
            #expect(imported.report.ignoredKeys.isEmpty)
        }
    }

    @Test func iconGridsWhoseKeysAreAliases() throws {
        for imported in try Self.read("wine-icons.json") {
            #expect(imported.report.shape == .icons && imported.report.shapeReason == "items have `name` and `image`")
            #expect(imported.catalog.sections[0].items.map(\.content) == [
                .icon(Icon(name: "红酒", icon: "1.png")), .icon(Icon(name: "白酒", icon: "2.png")), .icon(Icon(name: "啤酒", icon: "3.png")),
            ])
            #expect(imported.report.ignoredKeys == ["price": 3])
        }
        // `title` and `icon`: icons (the name from `title`), not a video feed.
        for imported in try Self.read("shop-icons.json") {
            #expect(imported.report.shape == .icons && imported.report.shapeReason == "items have `title` and `icon`")
            #expect(imported.catalog.sections[0].items.map(\.content) == [
                .icon(Icon(name: "Birthday cake", icon: "cake.png")), .icon(Icon(name: "Macarons", icon: "macaron.png")),
            ])
            #expect(imported.report.ignoredKeys == ["buyCount": 2, "price": 2])
        }
        // Wrapped two levels down, with ids, names and images under aliases.
        for imported in try Self.read("nested-results.json") {
            #expect(imported.report.root == "data.results" && imported.report.shape == .icons)
            #expect(imported.catalog.sections[0].items == [
                Item(id: "a-1", content: .icon(Icon(name: "Settings", icon: "gear"))),
                Item(id: "a-2", content: .icon(Icon(name: "Photos", icon: "photo"))),
            ])
        }
    }

    @Test func aWaterfallsItemsKeepTheirSizes() throws {
        for message in try Self.error("waterfall.json") {
            #expect(message.hasPrefix("missing; expected a string (read as icons because items have `img`; pass --map name=KEY"))
        }
        for imported in try Self.read("waterfall.json", ImportOptions(fieldMap: Self.map("name=price"))) {
            let items = imported.catalog.sections[0].items
            #expect(items.map(\.size) == [Size(width: 200, height: 275), Size(width: 200, height: 150), Size(width: 200, height: 320)])
            #expect(items.map(\.content) == [
                .icon(Icon(name: "¥169", icon: "http://img.example.com/goods/a.jpg")),
                .icon(Icon(name: "¥89", icon: "http://img.example.com/goods/b.jpg")),
                .icon(Icon(name: "¥239", icon: "http://img.example.com/goods/c.jpg")),
            ])
        }
    }

    @Test func keysNoAliasKnowsNeedAKindAndAMap() throws {
        for message in try Self.error("photos.json") {
            #expect(message.hasPrefix(#"unrecognised catalogue shape: found a dictionary with keys ["Caption", "Photo"], which names no field"#))
        }
        for imported in try Self.read("photos.json", ImportOptions(shape: .icons, fieldMap: Self.map("name=Caption", "icon=Photo"))) {
            #expect(imported.catalog.sections[0].items == [
                Item(id: "01", content: .icon(Icon(name: "Beach", icon: "01"))),
                Item(id: "02", content: .icon(Icon(name: "Harbour", icon: "02"))),
            ])
        }
    }

    @Test func videosUnderAVideosKey() throws {
        for imported in try Self.read("videos-wrapped.json") {
            #expect(imported.report.root == "videos" && imported.report.shapeReason == #"the items sit under "videos""#)
            #expect(imported.catalog.sections[0].items == [
                Item(id: "1", content: .video(Video(title: "Intro to Swift", cover: "thumbs/1.jpg"))),
                Item(id: "2", content: .video(Video(title: "Concurrency", cover: "thumbs/2.jpg", playCount: 900))),
            ])
            #expect(imported.report.ignoredKeys == ["url": 2])
        }
        // --map beats the alias: the cover from `url`, and `Thumbnail` is ignored.
        for imported in try Self.read("videos-wrapped.json", ImportOptions(fieldMap: Self.map("cover=url"))) {
            #expect(imported.catalog.sections[0].items.map(\.content.naturalKey) == ["https://v.example.com/1.mp4", "https://v.example.com/2.mp4"])
            #expect(imported.report.ignoredKeys == ["Thumbnail": 2])
        }
    }

    @Test func readmeShowsTheFieldTableAsItIs() throws {
        let readme = try String(contentsOf: Self.folder.appendingPathComponent("../../../README.md").standardizedFileURL, encoding: .utf8)
        #expect(readme.contains(ItemFieldTable.markdown))
    }

    @Test func badOptionsAndCollisionsAreErrors() throws {
        // --root that leads nowhere, and one through a value that is not a dictionary.
        for message in try Self.error("nested-results.json", ImportOptions(root: "data.list")) {
            #expect(message.hasPrefix(#"expected a key "list" (--root data.list), found a dictionary with keys ["results"] @ data"#))
        }
        for message in try Self.error("nested-results.json", ImportOptions(root: "status.x")) {
            #expect(message.hasPrefix(#"expected a dictionary holding "x" (--root status.x), found a string"#))
        }
        // A map to an unknown field, twice to one field, or to a key no item has.
        #expect(throws: ImportOptionError.self) { try Self.map("colour=c") }
        #expect(throws: ImportOptionError.self) { try Self.map("cover=a", "cover=b") }
        #expect(throws: ImportOptionError.self) { try Self.map("cover") }
        for message in try Self.error("wine-icons.json", ImportOptions(fieldMap: Self.map("icon=picture"))) {
            #expect(message == #"expected a key "picture" in some item for --map icon=picture, found no item with it @ "#)
        }
        for message in try Self.error("wine-icons.json", ImportOptions(shape: .icons, fieldMap: Self.map("cover=image"))) {
            #expect(message == "expected a field of the file's items for --map cover=image, found items (icon) without a cover @ ")
        }
        // Two keys for one field in one item, and ids that collide once integers are text.
        func decode(_ json: String) -> String {
            do {
                _ = try CatalogImporter.decode(Data(json.utf8), fileName: "x.json")
                return "no error"
            } catch {
                return error.description
            }
        }
        #expect(decode(#"[{"name": "A", "icon": "a", "IMG": "b"}]"#)
                == #"x.json: [0].IMG: expected one key for the icon of the icon, found both "icon" and "IMG" (pass --map icon=KEY to choose)"#)
        #expect(decode(#"[{"id": 7, "name": "A", "icon": "a"}, {"id": "7", "name": "B", "icon": "b"}]"#)
                == #"x.json: [1].id: duplicate id "7", already used at [0].id; expected ids unique in the catalogue"#)
        #expect(decode(#"[{"id": 1.5, "name": "A", "icon": "a"}]"#).contains("[0].id: expected a string, found the number 1.5"))
        #expect(decode(#"[{"w": 10, "name": "A", "icon": "a"}]"#) == #"x.json: [0].w: expected a width and a height together, found only "w""#)
        #expect(decode(#"{"items": [{"name": "A", "icon": "a"}], "list": [{"name": "B", "icon": "b"}]}"#).contains("several arrays of items (items, list)"))
    }
}
