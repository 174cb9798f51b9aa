import Foundation
import Testing

/// docs/Catalogue-files.md from the command line: a waterfall's data imports with `--map` and is laid out from
/// its items' own sizes; bad `--map` and `--root` exit 1 with one line and write nothing.
@Suite("catalog import: files as real apps ship them")
struct CLIRealWorldImportTests {
    static let waterfall = #"[{"w": 200, "h": 275, "img": "a.jpg", "price": "¥169"}, {"w": 200, "h": 150, "img": "b.jpg", "price": "¥89"}]"#

    @Test func aWaterfallImportsWithAMapAndKeepsItsSizes() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let file = try cli.file("goods.json", Self.waterfall)
        let report = try cli.succeed(["import", file, "--map", "name=price", "--db", cli.db])
        #expect(report.contains("read as icons because --map names the name of an icon"))
        let layout = try cli.succeed(["layout", "goods", "--config", #"{"style": "waterfall", "columns": 2, "columnSpacing": 0}"#,
                                      "--width", "400", "--height", "800", "--json", "--db", cli.db])
        // Two columns of 200 points: each item keeps its own aspect ratio.
        let object = try JSONSerialization.jsonObject(with: Data(layout.utf8)) as? [String: Any]
        let frames = (object?["elements"] as? [[String: Any]])?.compactMap { $0["frame"] as? [Double] }
        #expect(frames?.map { $0[3] } == [275, 150], "\(layout)")
    }

    @Test func badMapsAndRootsWriteNothing() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let file = try cli.file("goods.json", Self.waterfall)
        _ = try cli.succeed(["import", file, "--map", "name=price", "--db", cli.db])
        let before = try Data(contentsOf: URL(fileURLWithPath: cli.db))
        for (arguments, expected) in [
            (["--map", "colour=x"], #"--map "colour=x": unknown field "colour""#),
            (["--map", "name=price", "--map", "name=img"], "the field name is mapped twice"),
            (["--map", "name=cost"], #"expected a key "cost" in some item for --map name=cost, found no item with it"#),
            (["--root", "data.list"], #"expected a dictionary holding "data" (--root data.list), found an array of 2 elements"#),
            ([], "[0].name: missing; expected a string (read as icons because items have `img`"),
        ] {
            let result = try cli.run(["import", file, "--db", cli.db] + arguments)
            #expect(result.status == 1)
            #expect(result.stderrLines.count == 1 && result.stderr.contains(expected), "\(arguments): \(result.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: cli.db)) == before)
    }

    @Test func usageErrorsAreOneLine() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let icons = try cli.file("icons.json", #"[{"name": "A", "icon": "a.png"}]"#)
        let shelves = try cli.file("shelves.json", #"[["a", "b", "c"], ["d"]]"#)
        for (arguments, expected) in [
            (["import", shelves, "--capacity", "0"], "error: --capacity 0: expected a positive integer up to 2147483647"),
            (["import", icons, shelves, "--catalog", "x"], "error: --catalog names one catalogue; give it with one file (see 'catalog import --help')"),
            (["import", icons, "--capacity", "many"], "error: The value 'many' is invalid for '--capacity <capacity>' (see 'catalog import --help')"),
            (["show"], "error: Missing expected argument '<catalog>' (see 'catalog show --help')"),
            (["import", icons, "--capacity", "3"], "error: \(icons): capacity 3 applies to a loose bookshelf (an array of arrays of covers), "
                + "but the file is read as icons (items have `name` and `icon`); leave the capacity out"),
            (["import", shelves, "--capacity", "2"], #"error: \#(shelves): [0]: section "s1" holds 3 items; expected at most its capacity of 2"#),
        ] {
            let result = try cli.run(arguments + ["--db", cli.db])
            #expect(result.status == 1)
            #expect(result.stderrLines == [Substring(expected)], "\(arguments)")
        }
        #expect(!FileManager.default.fileExists(atPath: cli.db))
    }

    @Test func aDryRunShowsTheChangesetItWouldMakeAndWritesNothing() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let file = try cli.file("drinks.json", #"[{"name": "A", "icon": "a.png"}, {"name": "B", "icon": "b.png"}]"#)
        // No database: every catalogue is new, and none is created.
        let fresh = try cli.succeed(["import", file, "--dry-run", "--db", cli.db])
        #expect(fresh.contains("(dry run, nothing written)") && !fresh.contains("would change"))
        #expect(!FileManager.default.fileExists(atPath: cli.db))

        _ = try cli.succeed(["import", file, "--db", cli.db])
        _ = try cli.file("drinks.json", #"[{"name": "B", "icon": "b.png"}, {"name": "A", "icon": "a.png"}, {"name": "C", "icon": "c.png"}]"#)
        let before = try Data(contentsOf: URL(fileURLWithPath: cli.db))
        let text = try cli.succeed(["import", file, "--dry-run", "--db", cli.db])
        #expect(text.contains("  would change from revision 1:\n    stage 1: 1 item inserted, 1 item moved"), "\(text)")
        let json = try cli.succeed(["import", file, "--dry-run", "--json", "--db", cli.db])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["dryRun"] as? Bool == true && object["previousRevision"] as? Int == 1 && object["revision"] as? Int == 2)
        #expect(try Data(contentsOf: URL(fileURLWithPath: cli.db)) == before)

        // The real import then makes exactly the changeset the dry run printed.
        let written = try cli.succeed(["import", file, "--json", "--db", cli.db])
        let writtenObject = try #require(try JSONSerialization.jsonObject(with: Data(written.utf8)) as? [String: Any])
        let changeset = { (o: [String: Any]) in try JSONSerialization.data(withJSONObject: o["changeset"] ?? [:], options: .sortedKeys) }
        #expect(try changeset(writtenObject) == changeset(object))
    }

    @Test func showAlignsWideCharactersAndTwoDigitRows() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let names = ["红酒", "Beer", "啤酒🍺", "Wine", "Sake", "Tea", "咖啡", "Milk", "Water", "Juice", "茶"]
        let items = names.enumerated().map { #"{"name": "\#($1)", "icon": "\#($0).png"}"# }.joined(separator: ", ")
        let file = try cli.file("drinks.json", "[\(items)]")
        _ = try cli.succeed(["import", file, "--db", cli.db])
        let lines = try cli.succeed(["show", "drinks", "--db", cli.db]).split(separator: "\n")
        #expect(lines.contains("     #  ID      TITLE   DETAILS"))
        #expect(lines.contains("     0  0.png   红酒    icon 0.png"))
        #expect(lines.contains("     2  2.png   啤酒🍺  icon 2.png"))
        #expect(lines.contains("    10  10.png  茶      icon 10.png"))
    }

    @Test func pictureTitlesCountInTheSingular() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let file = try cli.file("one.json", #"[{"name": "A", "icon": "a.png"}]"#)
        _ = try cli.succeed(["import", file, "--db", cli.db])
        let path = cli.folder.appendingPathComponent("one.svg").path
        _ = try cli.succeed(["layout", "one", "--config", #"{"style": "flow"}"#, "--svg", path, "--width", "390", "--height", "844", "--db", cli.db])
        let svg = try String(contentsOfFile: path, encoding: .utf8)
        #expect(svg.contains("1 item in 1 section ·"), "\(svg.prefix(400))")
    }
}
