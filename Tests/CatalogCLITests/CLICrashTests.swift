import Foundation
import GRDB
import Testing

/// Issue #5's crash safety: `catalog apply` of a large batch killed with SIGKILL at random moments,
/// 50 times. After every kill the database opens, passes `catalog check` (SQLite's integrity and
/// foreign-key checks, positions in order) and holds the whole batch or none of it.
@Suite("crash safety")
struct CLICrashTests {
    /// 40 shelves of 100 books (room for 200 each).
    static func catalogue() -> String {
        let sections = (0..<40).map { s in
            let items = (0..<100).map { i in #"{"id": "s\#(s)b\#(i)", "title": "Book \#(i) of shelf \#(s)", "cover": "c\#(i)"}"# }
            return #"{"id": "s\#(s)", "kind": "bookshelf", "capacity": 200, "items": [\#(items.joined(separator: ", "))]}"#
        }
        return #"{"catalog": "big", "sections": [\#(sections.joined(separator: ", "))]}"#
    }

    /// 3,000 operations: moves across shelves, retitles, deletes and inserts.
    static func batch() -> String {
        var operations: [String] = []
        for k in 0..<3_000 {
            let s = k % 40, t = (k * 7 + 3) % 40, i = (k / 40) % 100
            switch k % 4 {
            case 0: operations.append(#"{"op": "moveItem", "id": "s\#(s)b\#(i)", "toSection": "s\#(t)", "index": 0}"#)
            case 1: operations.append(#"{"op": "updateItem", "id": "s\#(t)b\#((i + 50) % 100)", "fields": {"title": "Retitled \#(k)"}}"#)
            case 2: operations.append(#"{"op": "insertItem", "section": "s\#(s)", "index": 1, "item": {"id": "new\#(k)", "kind": "book", "title": "New \#(k)", "cover": "n"}}"#)
            default: operations.append(#"{"op": "deleteItem", "id": "new\#(k - 1)"}"#)
            }
        }
        return #"{"operations": [\#(operations.joined(separator: ",\n"))]}"#
    }

    /// `catalog apply big BATCH --db PATH` started, its output discarded.
    static func startApply(_ batch: String, on path: String) throws -> Process {
        let process = Process()
        process.executableURL = CLIRunner.executable
        process.arguments = ["apply", "big", batch, "--db", path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// A database `file` in the runner's folder holding the big catalogue, the batch file, and
    /// `show --json` of the catalogue before the batch.
    static func prepare(_ cli: CLIRunner, _ file: String) throws -> (path: String, batch: String, before: String) {
        let path = cli.folder.appendingPathComponent(file).path
        _ = try cli.succeed(["import", try cli.file("big.json", Self.catalogue()), "--db", path])
        let batch = try cli.file("batch.json", Self.batch())
        return (path, batch, try cli.succeed(["show", "big", "--json", "--db", path]))
    }

    @Test("SIGKILL during apply, 50 times: the database is sound and holds all of the batch or none of it")
    func killedApplies() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let (base, batch, before) = try Self.prepare(cli, "base.sqlite")

        // One uninterrupted run: the state after, and how long the command takes.
        let reference = cli.folder.appendingPathComponent("reference.sqlite").path
        try FileManager.default.copyItem(atPath: base, toPath: reference)
        let start = Date()
        _ = try cli.succeed(["apply", "big", batch, "--db", reference])
        let duration = Date().timeIntervalSince(start)
        let after = try cli.succeed(["show", "big", "--json", "--db", reference])
        #expect(after != before)

        var outcomes = (none: 0, whole: 0)
        for run in 0..<50 {
            let path = cli.folder.appendingPathComponent("run\(run).sqlite").path
            try FileManager.default.copyItem(atPath: base, toPath: path)
            let process = try Self.startApply(batch, on: path)
            // Anywhere from before the transaction starts to after it commits.
            Thread.sleep(forTimeInterval: Double.random(in: 0...(duration * 1.1)))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()

            let check = try cli.run(["check", "--db", path])
            #expect(check.status == 0, "run \(run): \(check.stderr)")
            let shown = try cli.succeed(["show", "big", "--json", "--db", path])
            if shown == before { outcomes.none += 1 } else if shown == after { outcomes.whole += 1 } else {
                Issue.record("run \(run): the database holds part of the batch")
            }
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: path + "-wal")
            try? FileManager.default.removeItem(atPath: path + "-shm")
        }
        #expect(outcomes.none + outcomes.whole == 50)
        // Where the kills land depends on the schedule; the test below kills one inside its write
        // for certain.
        print("crash safety: \(outcomes.none) kills left none of the batch, \(outcomes.whole) all of it (full run \(Int(duration * 1000)) ms)")
    }

    /// A kill that lands for certain before the commit: another connection holds the write lock,
    /// so `apply` (its database open) waits for it; killed then, it leaves none of the batch and
    /// a sound database.
    @Test("SIGKILL while apply waits to write: the database is sound and holds none of the batch")
    func killedBeforeItsCommit() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let (path, batch, before) = try Self.prepare(cli, "held.sqlite")

        let holder = try DatabaseQueue(path: path)
        // The lock is held for the whole of one database access (GRDB ends none with a
        // transaction open).
        let opened = try holder.inDatabase { db in
            try db.execute(sql: "BEGIN IMMEDIATE")
            defer { try? db.execute(sql: "ROLLBACK") }
            let process = try Self.startApply(batch, on: path)
            // The signal: the process has the database's log open (it is past parsing and
            // opening, at its write); it cannot commit while the lock is held.
            let opened = try Self.waitUntilOpen(path + "-wal", by: process)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return opened
        }
        try holder.close()
        #expect(opened, "apply never opened the database")

        let check = try cli.run(["check", "--db", path])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(try cli.succeed(["show", "big", "--json", "--db", path]) == before)
    }

    /// Waits until `process` holds the file at `path` open (Linux: its `/proc/PID/fd` links), or
    /// has exited; whether it did. Elsewhere, true at once.
    static func waitUntilOpen(_ path: String, by process: Process) throws -> Bool {
        #if os(Linux)
        let folder = "/proc/\(process.processIdentifier)/fd"
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        while process.isRunning {
            let links = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            if links.contains(where: { (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\($0)")) == target }) {
                return true
            }
            Thread.sleep(forTimeInterval: 0.002)
        }
        return false
        #else
        return true
        #endif
    }
}
