import CatalogBenchmarks
import CatalogModel
import CatalogStore
import CatalogTestSupport
import Foundation
import Testing

/// `catalog sync` and `catalog outbox` against `catalog serve` processes: a device's writes are
/// applied exactly once even when the server dies between its commit and its answer, a follower
/// killed mid-update restarts consistent and converges, and what cannot work says so in one line.
@Suite("catalog sync")
struct CLISyncTests {
    static let catalogue = #"""
        {"catalog": "shelf", "sections": [
          {"id": "a", "kind": "bookshelf", "capacity": 40, "items": [
            {"id": "a0", "title": "A0", "cover": "a0"}, {"id": "a1", "title": "A1", "cover": "a1"}, {"id": "a2", "title": "A2", "cover": "a2"}]},
          {"id": "b", "kind": "bookshelf", "capacity": 40, "items": [{"id": "b0", "title": "B0", "cover": "b0"}]},
          {"id": "c", "kind": "bookshelf", "capacity": 40, "items": []}
        ]}
        """#

    /// A server database holding the catalogue above, and a path for the device's.
    static func databases(_ cli: CLIRunner) throws -> (server: String, device: String) {
        let server = cli.folder.appendingPathComponent("server.sqlite").path
        _ = try cli.succeed(["import", try cli.file("shelf.json", catalogue), "--db", server])
        return (server, cli.folder.appendingPathComponent("device.sqlite").path)
    }

    /// `catalog sync` running as its own process.
    static func follower(_ cli: CLIRunner, port: Int, device: String) throws -> Process {
        let process = Process()
        process.executableURL = CLIRunner.executable
        process.arguments = ["sync", "--server", "http://127.0.0.1:\(port)", "shelf", "--db", device]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    static func sections(_ path: String) throws -> [[String]]? {
        guard FileManager.default.fileExists(atPath: path),
              let catalog = try? CatalogStore.openForReading(path: path).catalog(named: "shelf") else { return nil }
        return catalog.sections.map { $0.items.map(\.id) }
    }

    /// A port no process listens on now.
    static func freePort(_ cli: CLIRunner) throws -> Int {
        let server = try ServerProcess(arguments: ["--db", cli.folder.appendingPathComponent("probe.sqlite").path], folder: cli.folder)
        let port = server.port
        server.process.interrupt()
        server.process.waitUntilExit()
        return port
    }

    @Test("a write whose answer died with the server is sent again and applied once")
    func aWriteIsAppliedOnceWhenTheServerDiesBeforeAnswering() async throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let (serverDB, device) = try Self.databases(cli)
        let port = try Self.freePort(cli)
        var server = try ServerProcess(arguments: ["--db", serverDB], folder: cli.folder, port: port)
        // The device takes its copy, then goes offline.
        let first = try Self.follower(cli, port: port, device: device)
        try await waitUntil("the copy") { try Self.sections(device) == [["a0", "a1", "a2"], ["b0"], []] }
        first.interrupt()
        first.waitUntilExit()
        // Offline, the device moves a book: queued.
        _ = try cli.succeed(["move", "shelf", "a0", "--to", "c", "--index", "0", "--db", device])
        let queued = try #require(try CatalogStore(path: device).outbox().first)
        let client = try CatalogStore(path: device).clientID()
        // The write reaches the server, which commits it and dies before its answer is read.
        let connection = try RawConnection(port: port)
        #expect(connection.send("POST /catalogs/shelf/batches HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                                + "Catalog-Client-ID: \(client)\r\nCatalog-Client-Sequence: \(queued.sequence)\r\n"
                                + "Content-Length: \(queued.batch.utf8.count)\r\n\r\n\(queued.batch)"))
        try await waitUntil("the commit") { try CatalogStore.openForReading(path: serverDB).revision(of: "shelf") == 2 }
        kill(server.process.processIdentifier, SIGKILL)
        server.process.waitUntilExit()
        connection.close()
        // Back: the device sends the write again and gets the recorded answer; applied once.
        server = try ServerProcess(arguments: ["--db", serverDB], folder: cli.folder, port: port)
        let second = try Self.follower(cli, port: port, device: device)
        defer { second.interrupt(); second.waitUntilExit() }
        try await waitUntil("the outbox drained") { try CatalogStore.openForReading(path: device).outbox().isEmpty }
        try await waitUntil("the copy at the server's") { try Self.sections(device) == [["a1", "a2"], ["b0"], ["a0"]] }
        #expect(try CatalogStore.openForReading(path: serverDB).revision(of: "shelf") == 2)
        #expect(try Self.sections(serverDB) == [["a1", "a2"], ["b0"], ["a0"]])
        #expect(try cli.run(["outbox", "--db", device]).stdout == "the outbox is empty\n")
        server.process.interrupt()
    }

    @Test("a follower killed while it takes changes in restarts consistent and converges")
    func aFollowerKilledMidUpdateConverges() async throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let (serverDB, device) = try Self.databases(cli)
        let server = try ServerProcess(arguments: ["--db", serverDB], folder: cli.folder)
        defer { server.process.interrupt() }
        let books = ["a0", "a1", "a2", "b0"], shelves = ["a", "b", "c"]
        var random = SplitMix64(seed: 7)
        var follower = try Self.follower(cli, port: server.port, device: device)
        for round in 0..<6 {
            // The server takes writes while the follower runs, then the follower dies at once.
            for n in 0..<40 {
                let book = books[Int.random(in: 0..<books.count, using: &random)]
                let shelf = shelves[Int.random(in: 0..<shelves.count, using: &random)]
                _ = try server.request("/catalogs/shelf/moves", method: "POST", headers: ["Content-Type": "application/json"],
                                       body: Data(#"{"item": "\#(book)", "toSection": "\#(shelf)", "index": 0}"#.utf8))
                if n == 20 + round * 3 { kill(follower.processIdentifier, SIGKILL) }
            }
            follower.waitUntilExit()
            // Whatever it wrote is a whole update: the store checks out.
            if FileManager.default.fileExists(atPath: device) {
                let check = try cli.run(["check", "--db", device])
                #expect(check.status == 0, "\(check.stderr)")
            }
            follower = try Self.follower(cli, port: server.port, device: device)
        }
        defer { follower.interrupt(); follower.waitUntilExit() }
        try await waitUntil("the copy at the server's") { try Self.sections(device) == Self.sections(serverDB) }
        let followed = try CatalogStore.openForReading(path: device).followedCatalogs()
        #expect(followed.first?.serverRevision == (try CatalogStore.openForReading(path: serverDB).revision(of: "shelf")))
    }

    @Test("catalog outbox lists pending, acknowledged and rejected writes, as a table or JSON, and forgets the rejected ones")
    func theOutboxListsAndForgets() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let (device, store) = try Self.followingDevice(cli, server: "http://127.0.0.1:1")
        for (item, shelf) in [("a0", "c"), ("a1", "c"), ("b0", "c")] {
            _ = try cli.succeed(["move", "shelf", item, "--to", shelf, "--db", device])
        }
        try store.settle([(1, 7, nil)])
        try store.settle([(2, nil, RecordedAnswer(status: 409, body: #"{"type":"https://catalogkit.dev/problems/shelf-full","title":"Conflict","status":409,"detail":"shelf \"c\" is full"}"#))])
        let table = try cli.succeed(["outbox", "--db", device])
        #expect(table.contains("applied at server revision 7") && table.contains(#"409: shelf "c" is full"#) && table.contains("pending"), "\(table)")
        let rows = try #require(try CLIRunner.json(cli.succeed(["outbox", "--json", "--db", device])) as? [[String: Any]])
        #expect(rows.map { $0["state"] as? String } == ["acknowledged", "rejected", "pending"])
        #expect(rows[0]["serverRevision"] as? Int == 7 && rows[1]["status"] as? Int == 409)
        #expect((rows[1]["problem"] as? [String: Any])?["detail"] as? String == #"shelf "c" is full"#)
        #expect(((rows[2]["batch"] as? [String: Any])?["operations"] as? [[String: Any]])?.first?["id"] as? String == "b0")
        _ = try cli.succeed(["outbox", "--forget-rejected", "--db", device])
        #expect(try store.outbox().map(\.state) == [.acknowledged, .pending])
    }

    /// `catalog list` and `show` on a follower's database say which server each copy follows,
    /// the server revision it stands on and how many writes wait — its own revisions differ from
    /// the server's. (Before, they said nothing of it.)
    @Test func listAndShowTellWhatACopyFollows() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let (device, store) = try Self.followingDevice(cli, server: "http://books.example.com:8080")
        _ = try cli.succeed(["import", try cli.file("local.json", Self.catalogue), "--catalog", "local", "--db", device])
        try store.stand("shelf", on: 41)
        _ = try cli.succeed(["move", "shelf", "a0", "--to", "c", "--db", device])
        _ = try cli.succeed(["move", "shelf", "a1", "--to", "c", "--db", device])
        let table = try cli.succeed(["list", "--db", device])
        let shelf = try #require(table.split(separator: "\n").first { $0.hasPrefix("shelf") })
        #expect(table.contains("FOLLOWS") && table.contains("SERVER REVISION") && table.contains("WAITING"), "\(table)")
        #expect(shelf.contains("http://books.example.com:8080") && shelf.contains(" 41 ") && shelf.hasSuffix(" 2"), "\(shelf)")
        #expect(table.split(separator: "\n").first { $0.hasPrefix("local") }?.contains(" - ") == true, "\(table)")
        let rows = try #require(try CLIRunner.json(cli.succeed(["list", "--json", "--db", device])) as? [[String: Any]])
        let follows = try #require(rows.first { $0["name"] as? String == "shelf" }?["follows"] as? [String: Any])
        #expect(follows["server"] as? String == "http://books.example.com:8080" && follows["serverRevision"] as? Int == 41 && follows["waiting"] as? Int == 2)
        #expect(rows.first { $0["name"] as? String == "local" }?["follows"] == nil)
        let shown = try cli.succeed(["show", "shelf", "--db", device]).split(separator: "\n")
        #expect(shown.count > 1 && shown[1] == "follows http://books.example.com:8080 · server revision 41 · 2 writes waiting", "\(shown.prefix(2))")
    }

    /// A device database holding the catalogue "shelf", marked as following `server` (nothing
    /// runs there: its writes queue in the outbox).
    static func followingDevice(_ cli: CLIRunner, server: String) throws -> (path: String, store: CatalogStore) {
        let (_, device) = try Self.databases(cli)
        _ = try cli.succeed(["import", try cli.file("device.json", Self.catalogue), "--db", device])
        let store = try CatalogStore(path: device)
        _ = try store.follow("shelf", server: server)
        return (device, store)
    }

    /// A recorded answer that is not JSON (a proxy's page, kept by an older client) is printed as
    /// a JSON string: `--json` is valid JSON whatever the server answered. (Before:
    /// `"problem":<html>…`.)
    @Test func theOutboxIsValidJSONWhateverTheAnswer() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let (device, store) = try Self.followingDevice(cli, server: "http://127.0.0.1:1")
        _ = try cli.succeed(["move", "shelf", "a0", "--to", "c", "--db", device])
        let page = "<html><body><h1>413 Request Entity Too Large</h1>\u{1b}]52;c;x\u{7}</body></html>"
        try store.settle([(1, nil, RecordedAnswer(status: 413, body: page))])
        let rows = try #require(try CLIRunner.json(cli.succeed(["outbox", "--json", "--db", device])) as? [[String: Any]])
        #expect(rows.first?["problem"] as? String == page)
        #expect(try cli.succeed(["outbox", "--db", device]).contains("413: refused"))
    }

    @Test("an unknown catalogue, a bad URL or a refused token: one line, exit 1")
    func whatCannotWorkSaysSo() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let (serverDB, device) = try Self.databases(cli)
        let server = try ServerProcess(arguments: ["--db", serverDB, "--token", "secret", "--protect-reads"], folder: cli.folder)
        defer { server.process.interrupt() }
        let url = "http://127.0.0.1:\(server.port)"
        for (arguments, message) in [
            (["sync", "--server", url, "nothing", "--db", device, "--token", "secret"], "no catalogue named \"nothing\""),
            (["sync", "--server", "ftp://example.com", "shelf", "--db", device], "not a server URL"),
            (["sync", "--server", url, "shelf", "--db", device, "--token", "wrong"], "refused the token"),
            (["sync", "--server", url, "--db", device], "Missing expected argument"),
            (["sync", "--server", url, "shelf", "--db", device, "--token", "secret", "--moved-from", "http://127.0.0.1:1"], "follows http://127.0.0.1:1"),
            (["sync", "--server", url, "shelf", "--db", device, "--moved-from", "ftp://example.com"], "--moved-from: ftp://example.com is not a server URL"),
            (["sync", "--server", url, "shelf", "--db", device, "--moved-from", ""], "--moved-from: expected a URL"),
        ] {
            let result = try cli.run(arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr.contains(message) && result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
        }
        #expect(try cli.run(["outbox", "--db", cli.folder.appendingPathComponent("none.sqlite").path]).status == 1)
    }
}
