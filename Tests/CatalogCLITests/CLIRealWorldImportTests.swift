import Foundation
import Testing

/// SPEC §2a from the command line: a waterfall's data imports with `--map` and is laid out from
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
}
