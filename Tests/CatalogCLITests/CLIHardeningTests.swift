import CatalogBenchmarks
import Foundation
import Testing

/// What used to kill the command line or the server it runs, or start a server open to anyone.
@Suite("catalog hardening")
struct CLIHardeningTests {
    @Test("a layout too large to draw is an error of one line, not a crash")
    func hugeLayoutsAreRefused() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        _ = try cli.succeed(["demo", "--db", cli.db])
        let svg = cli.folder.appendingPathComponent("x.svg").path
        for (config, width) in [(#"{"style":"flow","itemSize":[1e300,50]}"#, "390"), (#"{"style":"shelf"}"#, "1e300"),
                                (#"{"style":"shelf","sectionInset":[0,1e7,0,0]}"#, "390")] {
            let result = try cli.run(["layout", "bookshelf", "--db", cli.db, "--config", config, "--width", width, "--height", "844", "--svg", svg])
            #expect(result.status == 1, "\(config): \(result.stderr)")
            #expect(result.stderrLines.count == 1 && result.stderr.hasPrefix("error: "), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: svg))
        }
        let batch = try cli.file("huge.json", #"{"operations": [{"op": "insertItem", "section": "science", "index": 0, "item": {"id": "h", "kind": "book", "title": "H", "cover": "h", "size": [1e300, 120]}}]}"#)
        let refused = try cli.run(["apply", "bookshelf", batch, "--db", cli.db])
        #expect(refused.status == 1 && refused.stderr.contains("size"), "\(refused.stderr)")
    }

    @Test("a binary copied to another folder serves its OpenAPI document")
    func openAPIFromAnywhere() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let copy = cli.folder.appendingPathComponent("catalog")
        try FileManager.default.copyItem(at: CLIRunner.executable, to: copy)
        let server = try ServerProcess(executable: copy, arguments: ["--db", cli.db], folder: cli.folder)
        let (status, body) = try server.request("/openapi.json")
        #expect(status == 200)
        let document = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(document["openapi"] as? String == "3.1.0")
        #expect(try server.request("/catalogs").status == 200)
    }

    @Test("an empty token refuses to start the server, from the flag or the environment")
    func emptyTokensAreRefused() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        for (arguments, environment) in [(["--token", ""], [String: String]()), ([], ["CATALOG_TOKEN": ""])] {
            let result = try cli.run(["serve", "--port", "0", "--db", cli.db] + arguments, environment: environment)
            #expect(result.status == 1)
            #expect(result.stderrLines.count == 1 && result.stderr.contains("empty"), "\(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: cli.db), "a refused server opens no database")
        for bad in [["--head-timeout", "0"], ["--body-timeout=-1"], ["--max-connections", "0"], ["--body-limit", "0"],
                    ["--journal-revisions", "0"], ["--journal-revisions", "99999999999"],
                    ["--max-event-streams", "0"], ["--max-event-streams", "4096"], ["--max-connections", "100", "--max-event-streams", "100"],
                    ["--max-event-streams-per-client", "0"], ["--database-connections", "0"], ["--database-connections", "10001"]] {
            let result = try cli.run(["serve", "--port", "0", "--db", cli.db] + bad)
            #expect(result.status == 1 && result.stderrLines.count == 1, "\(bad): \(result.stderr)")
        }
    }

    @Test("serve --journal-revisions sets how far back the database's journal reaches, for every process that writes it")
    func journalRevisions() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        _ = try cli.succeed(["demo", "--db", cli.db])
        do {
            let server = try ServerProcess(arguments: ["--db", cli.db, "--journal-revisions", "64"], folder: cli.folder)
            #expect(try server.request("/catalogs/bookshelf").status == 200)
        }
        // 130 moves from the command line, a process of its own: pruned by the server's setting.
        let list = try #require(try CLIRunner.json(cli.succeed(["list", "--json", "--db", cli.db])) as? [[String: Any]])
        let start = try #require(list.first { $0["name"] as? String == "bookshelf" }?["revision"] as? Int)
        for n in 0..<130 {
            _ = try cli.succeed(["move", "bookshelf", "b-karamazov", "--to", "classics", "--index", "\(n % 2)", "--db", cli.db])
        }
        let result = try cli.run(["changes", "bookshelf", "--since", "\(start)", "--db", cli.db])
        #expect(result.status == 1 && result.stderr.contains("too old"), "\(result.stderr)")
        _ = try cli.succeed(["changes", "bookshelf", "--since", "\(start + 130 - 64)", "--db", cli.db])
    }

    @Test("serve --help lists every route the server has (from its router, not a list of its own)")
    func serveHelpListsTheRoutes() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let help = try cli.succeed(["serve", "--help"]).replacingOccurrences(of: "\n", with: " ")
            .split(separator: " ").joined(separator: " ")
        for route in ["GET /catalogs", "DELETE /catalogs/{name}", "PUT /catalogs/{name}", "POST /catalogs/{name}/batches",
                      "POST /catalogs/{name}/moves", "GET /catalogs/{name}/changes", "GET /catalogs/{name}/events",
                      "GET /catalogs/{name}/layout", "GET /openapi.json"] {
            #expect(help.contains(route), "\(route) missing from: \(help)")
        }
    }

    @Test("catalog import and the server agree on which names a catalogue may have")
    func catalogueNames() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let file = try cli.file("icons.json", #"[{"name": "a", "icon": "a"}]"#)
        let result = try cli.run(["import", file, "--catalog", "bad/name", "--db", cli.db])
        #expect(result.status == 1 && result.stderr.contains("catalogue name"), "\(result.stderr)")
        _ = try cli.succeed(["import", file, "--catalog", "my shelf", "--db", cli.db])
        let server = try ServerProcess(arguments: ["--db", cli.db], folder: cli.folder)
        #expect(try server.request("/catalogs/my%20shelf").status == 200)
    }
}
