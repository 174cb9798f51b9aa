import CatalogImport
import Foundation
import Testing

/// Every malformed file gets an ``ImportError`` that names the file, the path inside it and what
/// was expected. (The command-line tests check the same files leave the database untouched.)
@Suite("Bad input")
struct BadInputTests {
    private func decode(_ text: String, as name: String = "bad.json", _ options: ImportOptions = ImportOptions()) -> ImportError? {
        decode(Data(text.utf8), as: name, options)
    }

    private func decode(_ data: Data, as name: String, _ options: ImportOptions = ImportOptions()) -> ImportError? {
        do {
            _ = try CatalogImporter.decode(data, fileName: name, options: options)
            return nil
        } catch {
            return error
        }
    }

    @Test("an empty file")
    func empty() throws {
        let error = try #require(decode("", as: "empty.json"))
        #expect(error.reason == .empty)
        #expect(error.description == "empty.json: the file is empty; expected a catalogue (JSON or property list)")
    }

    @Test("truncated JSON")
    func truncated() throws {
        let error = try #require(decode(#"{"sections": [{"kind": "icons", "items": [{"name": "a", "#))
        guard case .malformed(.json, let detail) = error.reason else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(!detail.isEmpty)
        #expect(error.description.hasPrefix("bad.json: not valid JSON: "))
    }

    @Test("a plist whose root is neither an array nor a dictionary")
    func plistScalarRoot() throws {
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><string>hello</string></plist>
            """
        let error = try #require(decode(plist, as: "scalar.plist"))
        guard case .unrecognisedShape(let found) = error.reason else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(found.contains("a string"))
        #expect(error.description.hasPrefix("scalar.plist: unrecognised catalogue shape: found a string"))
    }

    @Test("random bytes named .plist")
    func randomBytes() throws {
        var generator = SystemRandomNumberGenerator()
        var bytes = Data((0..<512).map { _ in UInt8.random(in: 0...255, using: &generator) })
        bytes[0] = 0x12  // not '<', not "bplist", not whitespace
        let error = try #require(decode(bytes, as: "noise.plist"))
        switch error.reason {
        case .malformed(.plist, _), .damagedBinaryPropertyList: break
        default: Issue.record("unexpected \(error)")
        }
        #expect(error.file == "noise.plist")
    }

    @Test("a binary plist cut short")
    func truncatedBinaryPlist() throws {
        let full = try PropertyListSerialization.data(fromPropertyList: [["name": "A", "icon": "a"]], format: .binary, options: 0)
        let error = try #require(decode(full.prefix(full.count / 2), as: "cut.plist"))
        guard case .malformed(.plist, _) = error.reason else {
            Issue.record("unexpected \(error)")
            return
        }
    }

    @Test("a wrong type names the path and both types")
    func wrongType() throws {
        let json = #"{"sections": [{"kind": "videos", "items": [{"title": "t", "cover": "c"}, {"title": "t", "cover": "d", "playCount": "many"}]}]}"#
        let error = try #require(decode(json))
        #expect(error.path == "sections[0].items[1].playCount")
        #expect(error.reason == .wrongType(expected: "an integer", found: "a string (\"many\")"))
        #expect(error.description == #"bad.json: sections[0].items[1].playCount: expected an integer, found a string ("many")"#)
    }

    @Test("a boolean is not an integer")
    func booleanIsNotInteger() throws {
        let error = try #require(decode(#"[{"title": "t", "cover": "c", "play_count": true}]"#))
        #expect(error.path == "[0].play_count")
        #expect(error.reason == .wrongType(expected: "an integer", found: "the boolean true"))
    }

    @Test("a negative count")
    func negativeCount() throws {
        let error = try #require(decode(#"[{"title": "t", "cover": "c"}, {"title": "u", "cover": "d", "praise_count": -5}]"#, as: "videos.json"))
        #expect(error.path == "[1].praise_count")
        #expect(error.description == "videos.json: [1].praise_count: expected an integer ≥ 0, found -5")
    }

    @Test("every bounded number is refused out of range, by its own key and its aliases", arguments: [
        (#"{"sections": [{"kind": "videos", "items": [{"title": "t", "cover": "c", "playCount": -1}]}]}"#,
         "sections[0].items[0].playCount", "an integer ≥ 0", "-1"),
        (#"{"sections": [{"kind": "videos", "items": [{"title": "t", "cover": "c", "likeCount": -2}]}]}"#,
         "sections[0].items[0].likeCount", "an integer ≥ 0", "-2"),
        (#"[{"title": "t", "images": "c", "play_count": -3}]"#, "[0].play_count", "an integer ≥ 0", "-3"),
        (#"[{"title": "t", "images": "c", "praise_count": -4}]"#, "[0].praise_count", "an integer ≥ 0", "-4"),
        (#"{"sections": [{"kind": "bookshelf", "capacity": 0, "items": []}]}"#, "sections[0].capacity", "a positive integer up to 2147483647", "0"),
        (#"{"sections": [{"kind": "bookshelf", "capacity": -4, "items": []}]}"#, "sections[0].capacity", "a positive integer up to 2147483647", "-4"),
        (#"{"sections": [{"kind": "bookshelf", "capacity": 2147483648, "items": []}]}"#, "sections[0].capacity", "a positive integer up to 2147483647", "2147483648"),
        (#"[{"name": "n", "icon": "i", "size": [-1, 10]}]"#, "[0].size", "[width, height] of numbers from 0 to 1000000", "-1.0"),
        (#"[{"name": "n", "icon": "i", "w": 10, "h": 1e300}]"#, "[0].h", "a number from 0 to 1000000", "1e+300"),
        (#"[{"name": "n", "icon": "i", "width": -5, "height": 10}]"#, "[0].width", "a number from 0 to 1000000", "-5.0"),
    ])
    func boundedNumbers(json: String, path: String, expected: String, found: String) throws {
        let error = try #require(decode(json))
        #expect(error.path == path)
        #expect(error.reason == .invalidValue(expected: expected, found: found), "\(error)")
    }

    @Test("a missing required field")
    func missingField() throws {
        let error = try #require(decode(#"{"sections": [{"id": "s", "kind": "bookshelf", "items": [{"id": "b", "title": "No cover"}]}]}"#))
        #expect(error.path == "sections[0].items[0].cover")
        #expect(error.reason == .missingField(expected: "a string"))
        let icons = try #require(decode(#"[{"name": "A", "icon": "a"}, {"name": "B"}]"#, as: "icons.json", ImportOptions(shape: .icons)))
        #expect(icons.path == "[1].icon")
    }

    @Test("duplicate explicit ids, for items and for sections")
    func duplicateIDs() throws {
        let items = try #require(decode(#"{"sections": [{"kind": "icons", "items": [{"id": "x", "name": "A", "icon": "a"}]}, {"kind": "icons", "items": [{"id": "y", "name": "B", "icon": "b"}, {"id": "x", "name": "C", "icon": "c"}]}]}"#))
        #expect(items.path == "sections[1].items[1].id")
        #expect(items.reason == .duplicateID("x", firstPath: "sections[0].items[0].id"))
        let sections = try #require(decode(#"{"sections": [{"id": "a", "kind": "icons"}, {"id": "a", "kind": "videos"}]}"#))
        #expect(sections.path == "sections[1].id")
    }

    @Test("a capacity no file could use, or one for a file without loose shelves, is refused by the importer itself")
    func unusableCapacity() throws {
        let zero = try #require(decode(#"[["1", "2"]]"#, as: "shelves.json", ImportOptions(shelfCapacity: 0)))
        #expect(zero.reason == .unusableOption("capacity 0: expected a positive integer up to 2147483647"))
        let icons = try #require(decode(#"[{"name": "A", "icon": "a"}]"#, as: "icons.json", ImportOptions(shelfCapacity: 3)))
        guard case .unusableOption(let message) = icons.reason else { Issue.record("\(icons)"); return }
        #expect(message.hasPrefix("capacity 3 applies to a loose bookshelf"))
    }

    @Test("a shelf over its capacity, native and loose")
    func overCapacity() throws {
        let native = try #require(decode(#"{"sections": [{"id": "top", "kind": "bookshelf", "capacity": 2, "items": [{"title": "a", "cover": "1"}, {"title": "b", "cover": "2"}, {"title": "c", "cover": "3"}]}]}"#))
        #expect(native.path == "sections[0].items")
        #expect(native.reason == .overCapacity(section: "top", count: 3, capacity: 2))
        let loose = try #require(decode(#"[["1", "2"], ["3", "4", "5", "6", "7"]]"#, as: "shelves.json"))
        #expect(loose.path == "[1]")
        #expect(loose.reason == .overCapacity(section: "s2", count: 5, capacity: 4))
        // The same file fits when the caller says the shelves are larger.
        #expect(decode(#"[["1", "2"], ["3", "4", "5", "6", "7"]]"#, as: "shelves.json", ImportOptions(shelfCapacity: 5)) == nil)
    }

    @Test("an unknown section kind, and a missing one")
    func unknownSectionKind() throws {
        let unknown = try #require(decode(#"{"sections": [{"id": "s", "kind": "podcasts"}]}"#))
        #expect(unknown.path == "sections[0].kind")
        #expect(unknown.reason == .invalidValue(expected: "one of videos, bookshelf, icons", found: "\"podcasts\""))
        let missing = try #require(decode(#"{"sections": [{"id": "s"}]}"#))
        #expect(missing.path == "sections[0].kind")
    }

    @Test("an item of another kind than its section")
    func itemKindMismatch() throws {
        let error = try #require(decode(#"{"sections": [{"kind": "icons", "items": [{"kind": "book", "title": "t", "cover": "c"}]}]}"#))
        #expect(error.path == "sections[0].items[0].kind")
    }

    @Test("invalid UTF-8")
    func invalidUTF8() throws {
        var bytes = Data(#"[{"name": "caf"#.utf8)
        bytes.append(contentsOf: [0xC3, 0x28])  // a lead byte followed by a non-continuation byte
        bytes.append(contentsOf: Data(#"", "icon": "x"}]"#.utf8))
        let error = try #require(decode(bytes, as: "latin.json"))
        #expect(error.reason == .invalidUTF8(offset: 14, line: 1, column: 15))
        #expect(error.description == "latin.json: not UTF-8 text: the byte at line 1, column 15 (offset 14) is not valid UTF-8; save the file as UTF-8")
    }

    @Test("a file that does not exist, and a directory")
    func unreadable() throws {
        let missing = URL(fileURLWithPath: "/nonexistent/catalog.json")
        #expect(throws: ImportError(file: missing.path, reason: .unreadable("no such file"))) {
            try CatalogImporter.read(contentsOf: missing)
        }
        let directory = FileManager.default.temporaryDirectory
        do {
            _ = try CatalogImporter.read(contentsOf: directory)
            Issue.record("a directory must not import")
        } catch {
            #expect(error.reason == .unreadable("it is a directory, expected a file"))
            #expect(error.description.contains(directory.path))
        }
    }

    @Test("shapes the importer does not know, and --kind forcing a wrong one")
    func unknownShapes() throws {
        #expect(decode("[]")?.reason == .unrecognisedShape("an empty array"))
        #expect(decode(#"{"items": []}"#)?.description.contains("a dictionary with keys [\"items\"] with no array of items") == true)
        #expect(decode(#"{"items": [{"id": "x"}], "list": [["b"]]}"#)?.description.contains("several arrays of items (items, list); pass --root PATH") == true)
        #expect(decode("[1, 2]")?.path == "[0]")
        let forced = try #require(decode(#"{"sections": []}"#, ImportOptions(shape: .icons)))
        #expect(forced.reason == .wrongType(expected: "an array of {name, icon} dictionaries", found: #"a dictionary with keys ["sections"]"#))
        #expect(decode("x", as: "data.bin")?.reason == .unknownFormat(".bin"))
    }

    @Test("wrong values deep inside: statuses, sizes, capacities, empty ids")
    func values() throws {
        #expect(decode(#"[{"title": "t", "cover": "c", "status": "live"}]"#)?.path == "[0].status")
        #expect(decode(#"[{"title": "t", "cover": "c", "status": 9}]"#)?.path == "[0].status")
        #expect(decode(#"[{"title": "t", "cover": "c", "size": [1]}]"#)?.path == "[0].size")
        #expect(decode(#"[{"title": "t", "cover": "c", "size": [1, -2]}]"#)?.path == "[0].size")
        #expect(decode(#"{"sections": [{"kind": "bookshelf", "capacity": 0}]}"#)?.path == "sections[0].capacity")
        #expect(decode(#"{"sections": [{"kind": "icons", "items": [{"id": "", "name": "a", "icon": "a"}]}]}"#)?.path == "sections[0].items[0].id")
        #expect(decode(#"[{"title": "t", "cover": ""}]"#)?.path == "[0]")
        #expect(decode(#"{"catalog": 5, "sections": []}"#)?.path == "catalog")
    }
}
