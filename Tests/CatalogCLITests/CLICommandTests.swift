import Foundation
import Testing

@Suite("catalog commands")
struct CLICommandTests {
    @Test("demo imports every sample file and shows what it loaded")
    func demo() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let output = try cli.succeed(["demo", "--db", cli.db])
        #expect(output.contains("Imported 6 sample files"))
        for name in ["bookshelf", "home", "icons", "icons-binary", "shelf-mock", "videos"] {
            #expect(output.contains("\"\(name)\""), "demo output mentions \(name)")
        }
        let list = try #require(try CLIRunner.json(cli.succeed(["list", "--json", "--db", cli.db])) as? [[String: Any]])
        #expect(list.map { $0["name"] as? String } == ["bookshelf", "home", "icons", "icons-binary", "shelf-mock", "videos"])
        let shelfMock = try #require(list.first { $0["name"] as? String == "shelf-mock" })
        #expect(shelfMock["sections"] as? Int == 7)
        #expect(shelfMock["items"] as? Int == 21)
        #expect(shelfMock["revision"] as? Int == 1)
        // The demo moves one book into a shelf with room for one, then fails to move a second.
        #expect(output.contains("move b-moby → science: moved, revision 1 → 2 (stage 1: 1 item moved)"))
        #expect(output.contains(#"move b-pride → science: rejected, catalogue "bookshelf": operation 0 (moveItem): shelf "science" is full: it holds at most 4 books"#))
        #expect(list.first { $0["name"] as? String == "bookshelf" }?["revision"] as? Int == 2)
        // Running the demo again re-imports (one revision each) and moves again (one more for the bookshelf).
        _ = try cli.succeed(["demo", "--db", cli.db])
        let again = try #require(try CLIRunner.json(cli.succeed(["list", "--json", "--db", cli.db])) as? [[String: Any]])
        #expect(again.allSatisfy { $0["revision"] as? Int == ($0["name"] as? String == "bookshelf" ? 4 : 2) })
    }

    @Test("show --json prints the native format plus revision, and imports again unchanged")
    func showRoundTrip() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        _ = try cli.succeed(["demo", "--db", cli.db])
        for name in ["bookshelf", "videos", "shelf-mock", "home"] {
            let shown = try cli.succeed(["show", name, "--json", "--db", cli.db])
            let object = try #require(try CLIRunner.json(shown) as? [String: Any])
            #expect(object["catalog"] as? String == name)
            // The demo also moved a book in the bookshelf.
            let revision = name == "bookshelf" ? 2 : 1
            #expect(object["revision"] as? Int == revision)
            let sections = try #require(object["sections"] as? [[String: Any]])
            for section in sections {
                for item in section["items"] as? [[String: Any]] ?? [] {
                    #expect(item["id"] is String && item["kind"] is String)
                }
            }
            let file = try cli.file("\(name)-export.json", shown)
            let report = try cli.succeed(["import", file, "--json", "--db", cli.db])
            let imported = try #require(try CLIRunner.json(report) as? [String: Any])
            #expect(imported["catalog"] as? String == name)
            #expect(imported["revision"] as? Int == revision + 1)
            #expect(imported["previousRevision"] as? Int == revision)
            let reimported = try cli.succeed(["show", name, "--json", "--db", cli.db])
            #expect(reimported == shown.replacingOccurrences(of: "\"revision\": \(revision),", with: "\"revision\": \(revision + 1),"))
        }
    }

    @Test("--db works before and after the subcommand, and CATALOG_DB is the default")
    func databaseLocation() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let icons = CLIRunner.packageRoot.appendingPathComponent("SampleData/icons.plist").path
        _ = try cli.succeed(["--db", cli.db, "import", icons])
        #expect(try cli.succeed(["list", "--db", cli.db]).contains("icons"))
        #expect(try cli.succeed(["--db", cli.db, "show", "icons"]).contains("Camera"))
        #expect(try cli.succeed(["show", "icons"], environment: ["CATALOG_DB": cli.db]).contains("Camera"))
        // With no --db and no CATALOG_DB, ./catalog.sqlite in the working directory.
        let elsewhere = try cli.run(["import", icons], in: cli.folder)
        #expect(elsewhere.status == 0)
        #expect(FileManager.default.fileExists(atPath: cli.db))
    }

    @Test("reading commands on a missing database, an unknown catalogue, a usage error: exit 1, one line")
    func userErrors() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let missing = try cli.run(["list", "--db", cli.db])
        #expect(missing.status == 1)
        #expect(missing.stderrLines.count == 1 && missing.stderr.contains("no database at \(cli.db)"))
        #expect(!FileManager.default.fileExists(atPath: cli.db), "a read must not create the database")

        _ = try cli.succeed(["demo", "--db", cli.db])
        let unknown = try cli.run(["show", "nope", "--db", cli.db])
        #expect(unknown.status == 1)
        #expect(unknown.stderrLines == ["error: no catalogue named \"nope\""])

        let usage = try cli.run(["import", "--kind", "podcasts", "x.json", "--db", cli.db])
        #expect(usage.status == 1)
        #expect(usage.stderr.contains("podcasts"))

        let twoNames = try cli.run(["import", "a.json", "b.json", "--catalog", "x", "--db", cli.db])
        #expect(twoNames.status == 1)
    }

    @Test("import --dry-run reads and reports but writes nothing")
    func dryRun() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let output = try cli.succeed(["import", "SampleData/shelf-mock.json", "--dry-run", "--db", cli.db])
        #expect(output.contains("dry run, nothing written"))
        #expect(output.contains("7 sections, 21 items"))
        #expect(!FileManager.default.fileExists(atPath: cli.db))
    }

    @Test("import --json reports derived ids, duplicates and ignored keys")
    func importReport() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let report = try #require(try CLIRunner.json(cli.succeed(["import", "SampleData/videos.json", "--json", "--db", cli.db])) as? [String: Any])
        let details = try #require(report["report"] as? [String: Any])
        #expect(details["shape"] as? String == "videos")
        #expect(details["items"] as? Int == 22)
        #expect(details["derivedIds"] as? Int == 22)
        #expect((details["ignoredKeys"] as? [String: Int]) == ["author_id": 4])
        let human = try cli.succeed(["import", "SampleData/shelf-mock.json", "--catalog", "mock", "--db", cli.db])
        #expect(human.contains("duplicate keys: 1"))
        #expect(try cli.succeed(["show", "mock", "--db", cli.db]).contains("11~2"))
    }

    @Test("--kind and --format force the interpretation of a file")
    func overrides() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let file = try cli.file("shelves.txt", #"[["a", "b"], ["c"]]"#)
        _ = try cli.succeed(["import", file, "--format", "json", "--kind", "bookshelf", "--capacity", "2", "--catalog", "forced", "--db", cli.db])
        let shown = try #require(try CLIRunner.json(cli.succeed(["show", "forced", "--json", "--db", cli.db])) as? [String: Any])
        let sections = try #require(shown["sections"] as? [[String: Any]])
        #expect(sections.map { $0["capacity"] as? Int } == [2, 2])
    }

    @Test("generate writes a deterministic catalogue that imports with the counts asked for")
    func generate() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let a = cli.folder.appendingPathComponent("a.json").path
        let b = cli.folder.appendingPathComponent("b.json").path
        let plist = cli.folder.appendingPathComponent("c.plist").path
        _ = try cli.succeed(["generate", "--items", "2500", "--sections", "25", "--kind", "bookshelf", "--name", "big", "--out", a])
        _ = try cli.succeed(["generate", "--items", "2500", "--sections", "25", "--kind", "bookshelf", "--name", "big", "--out", b])
        #expect(try Data(contentsOf: URL(fileURLWithPath: a)) == Data(contentsOf: URL(fileURLWithPath: b)))
        _ = try cli.succeed(["generate", "--items", "300", "--sections", "3", "--name", "plisted", "--out", plist])
        _ = try cli.succeed(["import", a, plist, "--db", cli.db])
        let list = try #require(try CLIRunner.json(cli.succeed(["list", "--json", "--db", cli.db])) as? [[String: Any]])
        #expect(list.first { $0["name"] as? String == "big" }?["items"] as? Int == 2500)
        #expect(list.first { $0["name"] as? String == "big" }?["sections"] as? Int == 25)
        #expect(list.first { $0["name"] as? String == "plisted" }?["items"] as? Int == 300)
    }

    @Test("demo --json and generate --json print machine-readable results")
    func jsonOutputs() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let demo = try #require(try CLIRunner.json(cli.succeed(["demo", "--json", "--db", cli.db])) as? [String: Any])
        let imports = try #require(demo["imports"] as? [[String: Any]])
        #expect(imports.count == 6)
        #expect(imports.allSatisfy { $0["revision"] as? Int == 1 && $0["report"] is [String: Any] })
        #expect((demo["catalogs"] as? [[String: Any]])?.count == 6)
        let out = cli.folder.appendingPathComponent("g.json").path
        let generated = try #require(try CLIRunner.json(cli.succeed(["generate", "--items", "10", "--out", out, "--json"])) as? [String: Any])
        #expect(generated["items"] as? Int == 10)
        #expect(generated["file"] as? String == out)
    }

    @Test("two files naming the same catalogue are refused before anything is written")
    func duplicateCatalogueNames() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let first = try cli.file("one.json", #"{"catalog": "same", "sections": []}"#)
        let second = try cli.file("two.json", #"{"catalog": "same", "sections": []}"#)
        let result = try cli.run(["import", first, second, "--db", cli.db])
        #expect(result.status == 1)
        #expect(result.stderrLines == ["error: \(first) and \(second) both name the catalogue \"same\"; import them separately or rename one"])
        #expect(!FileManager.default.fileExists(atPath: cli.db))
    }

    @Test("bad arguments and missing files of the other commands: exit 1, one readable line")
    func otherBadInput() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let sample = CLIRunner.packageRoot.appendingPathComponent("SampleData/icons.plist").path
        let missing = cli.folder.appendingPathComponent("nope.json").path
        let noChangeset = try cli.run(["validate", missing, "--from", sample, "--to", sample])
        #expect(noChangeset.status == 1)
        #expect(noChangeset.stderrLines.count == 1 && noChangeset.stderr.contains("nope.json: cannot read the file"))
        let noCatalogue = try cli.run(["diff", missing, sample])
        #expect(noCatalogue.stderrLines == ["error: \(missing): cannot read the file: no such file"])
        let zeroCapacity = try cli.run(["import", sample, "--capacity", "0", "--db", cli.db])
        #expect(zeroCapacity.status == 1 && zeroCapacity.stderrLines == ["error: --capacity 0: expected a positive integer up to 2147483647"])
        let noSections = try cli.run(["generate", "--items", "5", "--sections", "0", "--out", missing])
        #expect(noSections.status == 1 && noSections.stderrLines == ["error: --sections must be ≥ 1 (see 'catalog generate --help')"])
        #expect(!FileManager.default.fileExists(atPath: cli.db))
        _ = try cli.succeed(["demo", "--db", cli.db])
        let unknown = try cli.run(["changes", "nope", "--since", "0", "--db", cli.db])
        #expect(unknown.stderrLines == ["error: no catalogue named \"nope\""])
    }
}
