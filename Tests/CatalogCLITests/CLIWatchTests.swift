import CatalogBenchmarks
import Foundation
import Testing

/// `catalog watch` (docs/Live-updates.md): one line per update, from the local database or a server's stream,
/// until interrupted (exit 0).
@Suite("catalog watch")
struct CLIWatchTests {
    /// A command running in the background whose standard output is read line by line.
    final class Background: @unchecked Sendable {
        let process = Process()
        private let lock = NSLock()
        private var output = Data()

        init(_ arguments: [String]) throws {
            process.executableURL = CLIRunner.executable
            process.arguments = arguments
            process.currentDirectoryURL = CLIRunner.packageRoot
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
                let data = handle.availableData
                self?.lock.withLock { self?.output.append(data) }
            }
            try process.run()
        }

        var lines: [String] {
            lock.withLock { String(decoding: output, as: UTF8.self) }.split(separator: "\n").map(String.init)
        }

        /// Waits until `count` lines have arrived (or `seconds` pass) and returns them.
        func await(_ count: Int, seconds: Double = 10) -> [String] {
            let deadline = Date().addingTimeInterval(seconds)
            while lines.count < count, Date() < deadline { usleep(10_000) }
            return lines
        }

        /// Ctrl-C, then the exit status.
        func interrupt() -> Int32 {
            process.interrupt()
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    static func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    static func move(_ cli: CLIRunner, _ index: Int) throws {
        _ = try cli.succeed(["move", "bookshelf", "b-karamazov", "--to", "classics", "--index", "\(index)", "--db", cli.db])
    }

    @Test("local database: a reset, then each write another process makes")
    func local() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        _ = try cli.succeed(["demo", "--db", cli.db])
        let watch = try Background(["watch", "bookshelf", "--json", "--db", cli.db])
        let first = try Self.object(try #require(watch.await(1).first))
        #expect(first["reset"] as? Bool == true)
        let start = try #require(first["revision"] as? Int)
        try Self.move(cli, 0)
        try Self.move(cli, 1)
        let lines = watch.await(3)
        #expect(watch.interrupt() == 0)
        // Two updates, or one covering both: each from where the last ended.
        var revision = start
        for line in lines.dropFirst() {
            let object = try Self.object(line)
            let changeset = try #require(object["changeset"] as? [String: Any])
            #expect(changeset["fromRevision"] as? Int == revision)
            revision = try #require(object["revision"] as? Int)
        }
        #expect(revision == start + 2, "\(lines)")

        let text = try Background(["watch", "bookshelf", "--since", "\(start)", "--db", cli.db])
        let described = text.await(1)
        #expect(text.interrupt() == 0)
        #expect(described.first?.hasPrefix("revision \(start + 2) (from \(start)): stage 1: ") == true, "\(described)")
    }

    @Test("--server: follows the event stream")
    func server() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        _ = try cli.succeed(["demo", "--db", cli.db])
        let server = try ServerProcess(arguments: ["--db", cli.db], folder: cli.folder)
        let watch = try Background(["watch", "bookshelf", "--server", "http://127.0.0.1:\(server.port)"])
        let first = try #require(watch.await(1).first)
        #expect(first.contains(": reset — 7 sections, 18 items"), "\(first)")
        try Self.move(cli, 0)
        let lines = watch.await(2)
        #expect(watch.interrupt() == 0)
        #expect(lines.count == 2 && lines[1].contains("stage 1: 1 item moved"), "\(lines)")
    }

    @Test("catalog delete: all named or none, and every watcher of a deleted catalogue says so and ends by itself")
    func delete() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        _ = try cli.succeed(["demo", "--db", cli.db])
        func names() throws -> [String] {
            try #require(try CLIRunner.json(cli.succeed(["list", "--json", "--db", cli.db])) as? [[String: Any]]).compactMap { $0["name"] as? String }
        }
        let all = try names()
        for bad in [[], ["nope"], ["bookshelf", "home", "nope"], ["bookshelf", "--if-revision", "1"], ["bookshelf", "home", "--if-revision", "2"]] {
            let result = try cli.run(["delete"] + bad + ["--db", cli.db])
            #expect(result.status == 1 && result.stderrLines.count == 1, "\(bad): \(result.stderr)")
        }
        #expect(try names() == all, "a refused delete deleted something")

        let server = try ServerProcess(arguments: ["--db", cli.db], folder: cli.folder)
        let local = try Background(["watch", "bookshelf", "--db", cli.db])
        let remote = try Background(["watch", "bookshelf", "--json", "--server", "http://127.0.0.1:\(server.port)"])
        #expect(local.await(1).count == 1 && remote.await(1).count == 1)
        let output = try cli.succeed(["delete", "bookshelf", "home", "--db", cli.db])
        #expect(output == """
            deleted "bookshelf" at revision 2: 7 sections, 18 items
            deleted "home" at revision 1: 3 sections, 9 items

            """, "\(output)")
        #expect(try names() == all.filter { $0 != "bookshelf" && $0 != "home" })
        for watcher in [local, remote] {
            let deadline = Date().addingTimeInterval(10)
            while watcher.process.isRunning, Date() < deadline { usleep(10_000) }
            #expect(!watcher.process.isRunning, "a watcher of a deleted catalogue did not end: \(watcher.lines)")
            if watcher.process.isRunning { _ = watcher.interrupt() }
            #expect(watcher.process.terminationStatus == 0)
        }
        #expect(local.lines.last == #"catalogue "bookshelf" was deleted"#, "\(local.lines)")
        #expect(remote.lines.last == #"{"catalog":"bookshelf","deleted":true}"#, "\(remote.lines)")

        // Imported again, it goes on from the deleted catalogue's revisions.
        let imported = try cli.succeed(["import", "SampleData/bookshelf.json", "--db", cli.db])
        #expect(imported.contains("at revision 4"), "\(imported)")
    }

    @Test("bad input: exit 1, one line")
    func badInput() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        _ = try cli.succeed(["demo", "--db", cli.db])
        for arguments in [["watch", "nope", "--db", cli.db], ["watch", "bookshelf", "--since", "999", "--db", cli.db],
                          ["watch", "bookshelf", "--server", "not a url"], ["watch", "bookshelf", "--since=-1", "--db", cli.db]] {
            let result = try cli.run(arguments)
            #expect(result.status == 1 && result.stderrLines.count == 1, "\(arguments): \(result.stderr)")
        }
    }
}
