import CatalogBenchmarks
import Foundation
import Testing

/// `catalog serve`'s credentials as an operator sets them up: tokens made by `catalog token new`,
/// a token file read again on SIGHUP, files that do not parse; and what a terminal shows.
@Suite("catalog security")
struct CLISecurityTests {
    static let move = Data(#"{"item": "b-moby", "toSection": "science", "index": 0}"#.utf8)

    @Test("catalog token new makes a token whose hash the server takes; SIGHUP revokes and adds; a bad file keeps the old tokens")
    func tokenFiles() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        _ = try cli.succeed(["demo", "--db", cli.db])
        let file = cli.folder.appendingPathComponent("tokens").path
        let writer = try cli.succeed(["token", "new", "app", "--scope", "write", "--catalog", "bookshelf", "--file", file])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let reader = try cli.succeed(["token", "new", "viewer", "--scope", "read", "--file", file]).trimmingCharacters(in: .whitespacesAndNewlines)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(!text.contains(writer) && !text.contains(reader), "the file holds a token itself")
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600)
        let again = try cli.run(["token", "new", "app", "--scope", "admin", "--file", file])
        #expect(again.status == 1 && again.stderr.contains("app"), "\(again.stderr)")

        let server = try ServerProcess(arguments: ["--db", cli.db, "--token-file", file, "--protect-reads"], folder: cli.folder)
        func status(_ path: String, _ token: String?, method: String = "GET", body: Data? = nil) throws -> Int {
            var headers = ["Content-Type": "application/json"]
            if let token { headers["Authorization"] = "Bearer \(token)" }
            return try server.request(path, method: method, headers: headers, body: body).status
        }
        #expect(try status("/catalogs/bookshelf", nil) == 401)
        #expect(try status("/catalogs/bookshelf", reader) == 200)
        #expect(try status("/catalogs/bookshelf/moves", reader, method: "POST", body: Self.move) == 403)
        #expect(try status("/catalogs/bookshelf/moves", writer, method: "POST", body: Self.move) == 200)
        #expect(try status("/catalogs/home", writer) == 403)
        #expect(try status("/catalogs/bookshelf", writer, method: "DELETE") == 403)

        // Revoke the writer, add an admin, and tell the server.
        let admin = try cli.succeed(["token", "new", "ops", "--scope", "admin", "--file", file]).trimmingCharacters(in: .whitespacesAndNewlines)
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("app") }
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        try Self.hangUp(server, untilLogHas: "2 tokens")
        #expect(try status("/catalogs/bookshelf/moves", writer, method: "POST", body: Self.move) == 401)
        #expect(try status("/metrics", admin) == 200)

        // A file that does not parse: the old tokens stay in force, the log says why.
        try "ops \(String(repeating: "0", count: 64)) root\n".write(toFile: file, atomically: true, encoding: .utf8)
        try Self.hangUp(server, untilLogHas: "line 1")
        #expect(try status("/metrics", admin) == 200)
        #expect(try String(contentsOfFile: server.logPath, encoding: .utf8).contains("stay in force"))
    }

    /// Sends SIGHUP until the server's log has `text` (the reload is logged when done).
    static func hangUp(_ server: ServerProcess, untilLogHas text: String) throws {
        let before = try String(contentsOfFile: server.logPath, encoding: .utf8).components(separatedBy: text).count
        kill(server.process.processIdentifier, SIGHUP)
        let deadline = Date().addingTimeInterval(60)
        while try String(contentsOfFile: server.logPath, encoding: .utf8).components(separatedBy: text).count == before {
            guard Date() < deadline else { Issue.record("the log never said \(text)"); return }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    @Test("a token file or key file that does not parse stops serve with its line, before it opens the database")
    func badFilesStopTheServer() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let tokens = try cli.file("tokens", "# ok\nops \(String(repeating: "a", count: 64)) admin\nbad line\n")
        let result = try cli.run(["serve", "--port", "0", "--db", cli.db, "--token-file", tokens])
        #expect(result.status == 1 && result.stderrLines.count == 1 && result.stderr.contains("line 3"), "\(result.stderr)")
        let key = try cli.file("key.pem", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")
        for arguments in [["--jwt-key", key], ["--jwt-key", "nosuch.pem"], ["--jwt-audience", "x"], ["--token-file", "nosuch"],
                          ["--allowed-host", "http://x.example"], ["--allowed-origin", "x.example"]] {
            let result = try cli.run(["serve", "--port", "0", "--db", cli.db] + arguments)
            #expect(result.status == 1 && result.stderrLines.count == 1, "\(arguments): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: cli.db), "a refused server opens no database")
    }

    @Test("titles with terminal escapes are printed escaped by show and list")
    func controlCharactersAreEscaped() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let file = try cli.file("evil.json", #"{"catalog": "evil", "sections": [{"id": "s\u0007", "kind": "bookshelf", "title": "T\u001b]52;c;aGk=\u0007", "items": [{"id": "b\u009b1", "kind": "book", "title": "\u001b[31mred", "cover": "c"}]}]}"#)
        _ = try cli.succeed(["import", file, "--db", cli.db])
        for arguments in [["show", "evil"]] {
            let output = try cli.succeed(arguments + ["--db", cli.db])
            #expect(!output.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) }, "\(arguments): \(output.debugDescription)")
            #expect(output.contains("\\u{1b}"), "\(output)")
        }
    }
}
