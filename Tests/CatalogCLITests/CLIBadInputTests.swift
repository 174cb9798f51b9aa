import Foundation
import Testing

/// docs/Catalogue-files.md: every bad file exits 1 with one readable line on stderr naming the file
/// and the path inside it, and leaves the database exactly as it was.
@Suite("catalog import: bad input")
struct CLIBadInputTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var contents: Data?
        /// Text the one error line must contain (besides the file name).
        var expected: String
        var testDescription: String { name }

        init(_ name: String, _ contents: String?, expect expected: String) {
            self.name = name
            self.contents = contents.map { Data($0.utf8) }
            self.expected = expected
        }

        init(_ name: String, bytes: [UInt8], expect expected: String) {
            self.name = name
            self.contents = Data(bytes)
            self.expected = expected
        }
    }

    static let cases: [Case] = [
        Case("empty.json", "", expect: "the file is empty"),
        Case("truncated.json", #"{"catalog": "t", "sections": [{"id": "s", "kind": "icons", "items": [{"name": "#, expect: "not valid JSON"),
        Case("scalar-root.plist", #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><integer>42</integer></plist>"#,
             expect: "unrecognised catalogue shape: found the integer 42"),
        Case("random.plist", bytes: (0..<300).map { UInt8(truncatingIfNeeded: ($0 &* 197) ^ 0x5A) | 0x80 }, expect: "a damaged binary property list"),
        Case("wrong-type.json", #"{"sections": [{"kind": "videos", "items": [{"title": "a", "cover": "x"}, {"title": "b", "cover": "y", "playCount": "many"}]}]}"#,
             expect: #"sections[0].items[1].playCount: expected an integer, found a string ("many")"#),
        Case("negative.json", #"[{"title": "a", "images": "x"}, {"title": "b", "images": "y", "play_count": -3}]"#,
             expect: "[1].play_count: expected an integer ≥ 0, found -3"),
        Case("missing-field.json", #"{"sections": [{"id": "s", "kind": "bookshelf", "items": [{"id": "b", "title": "No cover"}]}]}"#,
             expect: "sections[0].items[0].cover: missing; expected a string"),
        Case("duplicate-ids.json", #"{"sections": [{"kind": "icons", "items": [{"id": "x", "name": "A", "icon": "a"}, {"id": "x", "name": "B", "icon": "b"}]}]}"#,
             expect: #"sections[0].items[1].id: duplicate id "x", already used at sections[0].items[0].id"#),
        Case("over-capacity.json", #"{"sections": [{"id": "top", "kind": "bookshelf", "items": [{"title": "a", "cover": "1"}, {"title": "b", "cover": "2"}, {"title": "c", "cover": "3"}, {"title": "d", "cover": "4"}, {"title": "e", "cover": "5"}]}]}"#,
             expect: #"sections[0].items: section "top" holds 5 items; expected at most its capacity of 4"#),
        Case("unknown-kind.json", #"{"sections": [{"id": "s", "kind": "podcasts", "items": []}]}"#,
             expect: #"sections[0].kind: expected one of videos, bookshelf, icons, found "podcasts""#),
        Case("invalid-utf8.json", bytes: Array(#"[{"name": "caf"#.utf8) + [0xE9] + Array(#"", "icon": "x"}]"#.utf8),
             expect: "not UTF-8 text: the byte at line 1, column 15 (offset 14) is not valid UTF-8"),
        Case("does-not-exist.json", nil, expect: "no such file"),
    ]

    /// What must not change: the database file's bytes and what `list` and `show` print.
    private func state(_ cli: CLIRunner) throws -> [String] {
        var state = [try Data(contentsOf: URL(fileURLWithPath: cli.db)).base64EncodedString()]
        state.append(try cli.succeed(["list", "--json", "--db", cli.db]))
        for name in ["bookshelf", "videos", "icons", "shelf-mock", "home", "icons-binary"] {
            state.append(try cli.succeed(["show", name, "--json", "--db", cli.db]))
        }
        return state
    }

    @Test("a bad file exits 1 with one line naming file and path, and the database is unchanged", arguments: cases)
    func badFile(_ badCase: Case) throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        _ = try cli.succeed(["demo", "--db", cli.db])
        let before = try state(cli)

        let path = cli.folder.appendingPathComponent(badCase.name).path
        if let contents = badCase.contents { try cli.file(badCase.name, contents) }
        // Into an existing catalogue (the one a real re-import would replace) and into a new one.
        for extra in [["--catalog", "bookshelf"], []] {
            let result = try cli.run(["import", path, "--db", cli.db] + extra)
            #expect(result.status == 1)
            #expect(result.stdout.isEmpty)
            #expect(result.stderrLines.count == 1, "expected one line, got: \(result.stderr)")
            let line = String(result.stderrLines.first ?? "")
            #expect(line.hasPrefix("error: "))
            #expect(line.contains(badCase.name), "the file is named: \(line)")
            #expect(line.contains(badCase.expected), "\(line) should contain \(badCase.expected)")
            #expect(!line.contains("Fatal error") && !line.contains("Stack"))
        }
        #expect(try state(cli) == before)
    }

    @Test("serve with an unknown log level: a usage error naming the levels, and no server")
    func unknownLogLevel() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let result = try cli.run(["serve", "--port", "0", "--log-level", "loud", "--db", cli.db])
        #expect(result.status == 1)
        #expect(!FileManager.default.fileExists(atPath: cli.db), "no database was created")
        let message = result.stderrLines.joined(separator: "\n")
        #expect(message.contains("loud") && message.contains("warning") && message.contains("trace"), "\(message)")
    }

    @Test("a directory given as a file")
    func directory() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        _ = try cli.succeed(["demo", "--db", cli.db])
        let before = try state(cli)
        let result = try cli.run(["import", cli.folder.path, "--db", cli.db])
        #expect(result.status == 1)
        #expect(result.stderrLines == ["error: \(cli.folder.path): cannot read the file: it is a directory, expected a file"])
        #expect(try state(cli) == before)
    }

    @Test("one bad file among good ones: nothing is written")
    func oneBadAmongMany() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        _ = try cli.succeed(["demo", "--db", cli.db])
        let before = try state(cli)
        let good = try cli.file("fresh.json", #"[{"name": "New", "icon": "new"}]"#)
        let bad = try cli.file("bad.json", #"[{"name": "Fine", "icon": "fine"}, {"name": "Broken"}]"#)
        let result = try cli.run(["import", good, bad, "--db", cli.db])
        #expect(result.status == 1)
        #expect(result.stderrLines == ["error: \(bad): [1].icon: missing; expected a string (read as icons because items have `name` and `icon`; "
                                       + "pass --map icon=KEY to read it from another key, or --kind)"])
        #expect(try state(cli) == before)
        #expect(try !cli.succeed(["list", "--db", cli.db]).contains("fresh"))
    }

    @Test("a database file that is not a database")
    func notADatabase() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        try cli.file("catalog.sqlite", String(repeating: "not a database ", count: 300))
        let before = try Data(contentsOf: URL(fileURLWithPath: cli.db))
        let result = try cli.run(["import", CLIRunner.packageRoot.appendingPathComponent("SampleData/icons.plist").path, "--db", cli.db])
        #expect(result.status == 1)
        #expect(result.stderrLines.count == 1)
        #expect(result.stderr.contains("cannot open the database \(cli.db)"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: cli.db)) == before)
    }
}
