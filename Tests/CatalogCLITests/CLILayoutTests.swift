import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// `catalog layout` from files and from the database, every style as a picture, and bad input.
@Suite struct CLILayoutTests {
    /// F1 of docs/Layouts.md as a catalogue: one shelf of seven books.
    static let sevenBooks = #"""
        {"catalog": "seven", "sections": [{"id": "s", "kind": "bookshelf", "title": "Seven", "capacity": 7, "items": [
          {"id": "b0", "title": "Zero", "cover": "0"}, {"id": "b1", "title": "One", "cover": "1"},
          {"id": "b2", "title": "Two", "cover": "2"}, {"id": "b3", "title": "Three", "cover": "3"},
          {"id": "b4", "title": "Four", "cover": "4"}, {"id": "b5", "title": "Five", "cover": "5"},
          {"id": "b6", "title": "Six & <more>", "cover": "6"}]}]}
        """#
    static let f1 = #"{"style": "flow", "itemSize": [90, 50], "lineSpacing": 10, "interitemSpacing": 10, "sectionInset": [10, 10, 10, 10], "headerHeight": 40, "footerHeight": 30, "pinHeaders": false, "scrollDirection": "vertical"}"#

    static func elements(_ json: Any) throws -> [[String: Any]] {
        try #require((json as? [String: Any])?["elements"] as? [[String: Any]])
    }

    @Test("layout --json of a catalogue file gives docs/Layouts.md's F1 frames")
    func flowFromAFile() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let file = try cli.file("seven.json", Self.sevenBooks)
        let config = try cli.file("LAYOUT.json", Self.f1)
        let json = try CLIRunner.json(cli.succeed(["layout", file, "--config", config, "--width", "320", "--height", "480", "--json"]))
        #expect((json as? [String: Any])?["contentSize"] as? [Double] == [320, 260])
        let elements = try Self.elements(json)
        let cells = elements.filter { $0["kind"] as? String == "cell" }
        #expect(cells.map { ($0["frame"] as? [Double])?[0] } == [10, 115, 220, 10, 115, 220, 10])
        #expect(cells.map { ($0["frame"] as? [Double])?[1] } == [50, 50, 50, 110, 110, 110, 170])
        #expect(cells.map { $0["indexPath"] as? [Int] } == (0..<7).map { [0, $0] })
        #expect(elements.first { $0["kind"] as? String == "header" }?["frame"] as? [Double] == [0, 0, 320, 40])
        #expect(elements.first { $0["kind"] as? String == "footer" }?["frame"] as? [Double] == [0, 230, 320, 30])
        let first = try #require(cells.first)
        #expect(first["scale"] as? Double == 1 && first["alpha"] as? Double == 1 && first["zIndex"] as? Int == 0
                && first["hidden"] as? Bool == false)
        // An offset too large for an integer is printed as a number, not a stop.
        let huge = try cli.succeed(["layout", file, "--config", config, "--width", "1000000", "--height", "900", "--offset", "0,1e300"])
        #expect(huge.hasPrefix(#"Catalogue "seven" · flow layout · viewport 1000000×900 at (0, 1e+300)"#), "\(huge.prefix(120))")

        // --visible with an offset: only what the viewport shows.
        let visible = try Self.elements(CLIRunner.json(cli.succeed([
            "layout", file, "--config", Self.f1, "--width", "320", "--height", "60", "--offset", "0,90", "--visible", "--json",
        ])))
        #expect(visible.map { $0["kind"] as? String } == ["cell", "cell", "cell", "cell", "cell", "cell"])
        #expect(visible.compactMap { ($0["indexPath"] as? [Int])?[1] } == [0, 1, 2, 3, 4, 5])
    }

    @Test("layout reads a catalogue from the database and prints a table")
    func shelfFromTheDatabase() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        _ = try cli.succeed(["demo", "--db", cli.db])
        let output = try cli.succeed(["layout", "bookshelf", "--db", cli.db, "--config",
                                      #"{"style": "shelf", "itemSize": [80, 120], "sectionInset": [10, 10, 10, 10], "headerHeight": 30}"#,
                                      "--width", "390", "--height", "600"])
        let lines = output.split(separator: "\n")
        #expect(lines.first?.hasPrefix("Catalogue \"bookshelf\" · shelf layout · viewport 390×600 at (0, 0) · content 390×") == true)
        #expect(lines.contains { $0.hasPrefix("decoration  [0, 0]      (0, 30, 390, 140)") })
        #expect(lines.contains { $0.hasPrefix("cell        [0, 0]      (10, 40, 80, 120)") })
    }

    @Test("every style renders to SVG from the command line", arguments: [
        #"{"style": "flow", "itemSize": [90, 50], "headerHeight": 30, "footerHeight": 20}"#,
        #"{"style": "waterfall", "columns": 3}"#,
        #"{"style": "circular", "itemSize": [50, 50]}"#,
        #"{"style": "shelf", "itemSize": [40, 60], "sectionInset": [8, 8, 8, 8]}"#,
        #"{"style": "carousel", "itemSize": [200, 300], "lineSpacing": 20, "minScale": 0.6}"#,
    ])
    func svgForEveryStyle(config: String) throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let file = try cli.file("seven.json", Self.sevenBooks)
        let svg = cli.folder.appendingPathComponent("picture.svg").path
        let json = try CLIRunner.json(cli.succeed(["layout", file, "--config", config, "--width", "390", "--height", "500",
                                                   "--offset", "60,0", "--svg", svg, "--json"]))
        let elements = try Self.elements(json)
        let document = try XMLDocument(contentsOf: URL(fileURLWithPath: svg))
        let rects = try document.nodes(forXPath: "//*[local-name()='rect']").compactMap { $0 as? XMLElement }
        func attribute(_ element: XMLElement, _ name: String) -> String? {
            element.attributes?.first { $0.name == name }?.stringValue
        }
        let drawn = rects.filter { attribute($0, "data-kind").map { $0 != "viewport" } ?? false }
        #expect(drawn.count == elements.count)
        #expect(drawn.filter { attribute($0, "data-kind") == "cell" }.count == 7)
        #expect(rects.contains { attribute($0, "data-kind") == "viewport" && attribute($0, "x") == "60" })
        let texts = try document.nodes(forXPath: "//*[local-name()='text']").compactMap(\.stringValue)
        #expect(texts.contains { $0.hasPrefix("Six") || $0.hasPrefix("S…") || $0 == "Six & <more>" })
    }

    @Test("the demo writes a picture of the bookshelf beside the database")
    func demoPicture() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let demo = try #require(try CLIRunner.json(cli.succeed(["demo", "--json", "--db", cli.db])) as? [String: Any])
        let path = try #require(demo["picture"] as? String)
        #expect(path == cli.folder.appendingPathComponent("bookshelf.svg").path)
        let document = try XMLDocument(contentsOf: URL(fileURLWithPath: path))
        let cells = try document.nodes(forXPath: "//*[local-name()='rect'][@data-kind='cell']")
        let boards = try document.nodes(forXPath: "//*[local-name()='rect'][@data-kind='decoration']")
        let show = try #require(try CLIRunner.json(cli.succeed(["show", "bookshelf", "--json", "--db", cli.db])) as? [String: Any])
        let sections = try #require(show["sections"] as? [[String: Any]])
        #expect(cells.count == sections.reduce(0) { $0 + (($1["items"] as? [Any])?.count ?? 0) })
        #expect(boards.count == sections.filter { !(($0["items"] as? [Any])?.isEmpty ?? true) }.count)
    }

    @Test("bad layout input: exit 1, one line naming what is wrong, database untouched")
    func badInput() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        _ = try cli.succeed(["demo", "--db", cli.db])
        let before = try Data(contentsOf: URL(fileURLWithPath: cli.db))
        let broken = try cli.file("broken.json", #"{"style": "flow", "#)
        let cases: [([String], String)] = [
            (["--config", #"{"style": "grid"}"#], #"error: --config: layout configuration key "style": expected one of flow, waterfall, circular, shelf, carousel, found "grid""#),
            (["--config", broken], #"error: \#(broken): layout configuration: expected a JSON object such as {"style": "flow"}, found line 1, column 19: unexpected end of file, expected a member name in double quotes"#),
            (["--config", "missing.json"], "error: cannot read layout configuration missing.json: no such file or not readable"),
            (["--config", #"{"style": "flow", "columns": 0}"#], #"error: --config: layout configuration key "columns": expected an integer from 1 to 1000"#),
            (["--config", #"{"style": "flow"}"#, "--offset", "3,4,5"], #"error: --offset: expected two numbers x,y such as 0,120, found "3,4,5""#),
            // A single integer is a view's window (docs/Views.md), not a scroll offset: that one is not an integer.
            (["--config", #"{"style": "flow"}"#, "--offset", "3.5"], #"error: --offset, at 1: expected an integer from 0 to \#(Int.max), found "3.5""#),
            (["--config", #"{"style": "flow", "headerHeight": 1e308, "footerHeight": 1e308}"#],
             #"error: --config: layout configuration key "headerHeight": expected a number from 0 to 1000000"#),
        ]
        for (extra, message) in cases {
            let result = try cli.run(["layout", "bookshelf", "--db", cli.db, "--width", "390", "--height", "600"] + extra)
            #expect(result.status == 1)
            #expect(result.stderrLines == [Substring(message)])
        }
        let zero = try cli.run(["layout", "bookshelf", "--db", cli.db, "--config", #"{"style": "flow"}"#, "--width", "0", "--height", "600"])
        #expect(zero.status == 1 && zero.stderrLines == ["error: viewport: expected a positive width and height of at most 1000000, found 0×600"])
        let unknown = try cli.run(["layout", "nope", "--db", cli.db, "--config", #"{"style": "flow"}"#, "--width", "9", "--height", "9"])
        #expect(unknown.status == 1 && unknown.stderrLines == [#"error: no catalogue named "nope""#])
        #expect(try Data(contentsOf: URL(fileURLWithPath: cli.db)) == before)
    }
}
