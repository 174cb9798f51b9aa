import CatalogBenchmarks
import CatalogPostgres
import CatalogStore
import CatalogTestSupport
import Foundation
import PostgresNIO
import Testing

/// The commands on either backend: `--db` (or `CATALOG_DB`) names a SQLite file or a
/// `postgres://` URL, and everything works the same — the output, the refusals (exit 1, one
/// line, nothing written) — with the password never printed.
@Suite("catalog on SQLite and PostgreSQL")
struct CLIBackendTests {
    /// A database for `backend`: a file in the runner's folder, or a new PostgreSQL database.
    static func database(_ backend: Backend, _ cli: CLIRunner) async throws -> (url: String, drop: () async -> Void) {
        switch backend {
        case .sqlite:
            return (cli.db, {})
        case .postgres:
            let name = try await TestPostgres.createDatabase()
            return (TestPostgres.url(TestPostgres.url!, database: name), { try? await TestPostgres.dropDatabase(name) })
        }
    }

    @Test(arguments: Backend.available)
    func everyCommandOnTheDatabase(backend: Backend) async throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let (db, drop) = try await Self.database(backend, cli)
        do {
            let imported = try cli.succeed(["import", "SampleData/bookshelf.json", "--db", db])
            #expect(imported.contains(#"catalogue "bookshelf" at revision 1"#))
            #expect(try cli.succeed(["list", "--db", db]).contains("bookshelf         1         7     18"))
            // Through the environment too.
            #expect(try cli.succeed(["list"], environment: ["CATALOG_DB": db]).contains("bookshelf"))
            #expect(try cli.succeed(["move", "bookshelf", "b-moby", "--to", "science", "--db", db])
                .contains("bookshelf: revision 1 → 2 (moved b-moby to science, at the end)"))
            // science is full now: refused, one line, nothing written.
            let full = try cli.run(["move", "bookshelf", "b-odyssey", "--to", "science", "--db", db])
            #expect(full.status == 1)
            #expect(full.stderrLines == [#"error: catalogue "bookshelf": operation 0 (moveItem): shelf "science" is full: it holds at most 4 books"#])
            let batch = try cli.file("batch.json", #"{"baseRevision": 2, "operations": [{"op": "deleteItem", "id": "b-odyssey"}]}"#)
            #expect(try cli.succeed(["apply", "bookshelf", batch, "--dry-run", "--db", db]).contains("nothing written"))
            #expect(try cli.succeed(["changes", "bookshelf", "--since", "1", "--db", db]).contains("from revision 1 to 2"))
            let stale = try cli.file("stale.json", #"{"baseRevision": 1, "operations": [{"op": "deleteItem", "id": "b-odyssey"}]}"#)
            #expect(try cli.run(["apply", "bookshelf", stale, "--db", db]).status == 1)
            #expect(try cli.succeed(["apply", "bookshelf", batch, "--db", db]).contains("revision 2 → 3"))
            let show = try CLIRunner.json(try cli.succeed(["show", "bookshelf", "--json", "--db", db])) as? [String: Any]
            #expect(show?["revision"] as? Int == 3)
            #expect(try cli.succeed(["import", "SampleData/bookshelf.json", "--dry-run", "--db", db]).contains("dry run, nothing written"))
            #expect(try cli.succeed(["layout", "bookshelf", "--config", #"{"style": "shelf"}"#, "--width", "390", "--height", "844", "--db", db])
                .contains("bookshelf"))
            #expect(try cli.succeed(["check", "--db", db]).hasPrefix("ok: 1 catalogue, 7 sections, 17 items"))
            #expect(try cli.succeed(["delete", "bookshelf", "--if-revision", "3", "--db", db]).contains(#"deleted "bookshelf" at revision 3"#))
            #expect(try cli.succeed(["list", "--json", "--db", db]).trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
        } catch {
            await drop()
            throw error
        }
        await drop()
    }

    /// Two `catalog serve` on one PostgreSQL database: a `catalog watch --db URL` (listening
    /// itself) and a `catalog watch --server` on the second instance both see a move made
    /// through the first.
    @Test(.enabled(if: TestPostgres.url != nil, "needs PostgreSQL"))
    func twoInstancesAndTheirWatchers() async throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let (db, drop) = try await Self.database(.postgres, cli)
        do {
            _ = try cli.succeed(["import", "SampleData/bookshelf.json", "--db", db])
            let first = try ServerProcess(arguments: ["--db", db, "--database-connections", "4"], folder: cli.folder)
            let second = try ServerProcess(arguments: ["--db", db, "--database-connections", "4"], folder: cli.folder)
            let local = try CLIWatchTests.Background(["watch", "bookshelf", "--db", db])
            let remote = try CLIWatchTests.Background(["watch", "bookshelf", "--server", "http://127.0.0.1:\(second.port)"])
            #expect(local.await(1, seconds: 60).first?.contains(": reset — 7 sections, 18 items") == true, "\(local.lines)")
            #expect(remote.await(1, seconds: 60).first?.contains(": reset — 7 sections, 18 items") == true, "\(remote.lines)")
            // The move through the first instance.
            let moved = try first.request("/catalogs/bookshelf/moves", method: "POST", headers: ["Content-Type": "application/json"],
                                          body: Data(#"{"item": "b-moby", "toSection": "science"}"#.utf8))
            #expect(moved.status == 200)
            for watch in [local, remote] {
                let lines = watch.await(2, seconds: 60)
                #expect(watch.interrupt() == 0)
                #expect(lines.count == 2 && lines[1].contains("revision 2") && lines[1].contains("1 item moved"), "\(lines)")
            }
        } catch {
            await drop()
            throw error
        }
        await drop()
    }

    /// `catalog copy` from the demo's SQLite file to `backend`: the same catalogues at the same
    /// revisions, the same changes since an old revision; a second copy refused unless --replace.
    @Test(arguments: Backend.available)
    func copyCarriesRevisionsAndJournals(backend: Backend) async throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        _ = try cli.succeed(["demo", "--db", cli.db])
        let target = backend == .sqlite ? (cli.folder.appendingPathComponent("copy.sqlite").path, { () async in })
            : try await Self.database(.postgres, cli)
        do {
            let copied = try cli.succeed(["copy", "--from", cli.db, "--to", target.0])
            #expect(copied.contains(#"copied "bookshelf" at revision 2: 7 sections, 18 items, journal from revision 0"#), "\(copied)")
            #expect(try cli.succeed(["list", "--db", target.0]) == (try cli.succeed(["list", "--db", cli.db])).replacingOccurrences(of: cli.db, with: target.0))
            #expect(try cli.succeed(["changes", "bookshelf", "--since", "1", "--json", "--db", target.0])
                    == (try cli.succeed(["changes", "bookshelf", "--since", "1", "--json", "--db", cli.db])))
            // A whole copy keeps the database's identity: to a device, the same server moved.
            let source = try CatalogStore(path: cli.db)
            let copy: any CatalogDatabase = backend == .sqlite ? try CatalogStore(path: target.0)
                : try await PostgresCatalogStore.open(url: target.0, maximumConnections: 2)
            #expect(try await copy.identity() == source.identity())
            source.close()
            copy.close()
            let again = try cli.run(["copy", "--from", cli.db, "--to", target.0, "bookshelf"])
            #expect(again.status == 1 && again.stderrLines == [#"error: the catalogue "bookshelf" is already in the target database; pass --replace to replace it"#])
            _ = try cli.succeed(["move", "bookshelf", "b-karamazov", "--to", "classics", "--index", "0", "--db", cli.db])
            _ = try cli.succeed(["copy", "--from", cli.db, "--to", target.0, "bookshelf", "--replace"])
            #expect(try cli.succeed(["show", "bookshelf", "--json", "--db", target.0]) == (try cli.succeed(["show", "bookshelf", "--json", "--db", cli.db])))
            let same = try cli.run(["copy", "--from", cli.db, "--to", cli.db])
            #expect(same.status == 1 && same.stderr.contains("the same database"))
            #expect(try cli.run(["copy", "--from", cli.db, "--to", target.0, "nope"]).status == 1)
        } catch {
            await target.1()
            throw error
        }
        await target.1()
    }

    @Test func anUnreachableOrMisspelledPostgresURLIsOneLineWithoutThePassword() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let cases: [(url: String, expected: String)] = [
            ("postgres://someone:s3cret-pw@127.0.0.1:1/catalogs", "cannot open the database postgres://someone@127.0.0.1:1/catalogs: "),
            ("postgres://someone:s3cret-pw@127.0.0.1:99999/catalogs", "the port 99999 is not a port number"),
            ("postgres://someone:s3cret-pw@127.0.0.1:5432/catalogs?sslmode=sometimes", "sslmode sometimes is not one of disable, prefer, require"),
        ] + (TestPostgres.url.map { url in
            [(TestPostgres.url(url, database: "no_such_database_here"), #"database "no_such_database_here" does not exist"#)]
        } ?? [])
        for (url, expected) in cases {
            let result = try cli.run(["list", "--db", url], environment: ["PGPASSWORD": "env-secret"])
            #expect(result.status == 1, "\(url)")
            #expect(result.stderrLines.count == 1 && result.stderr.contains(expected), "\(result.stderr)")
            #expect(!result.stderr.contains("s3cret") && !result.stderr.contains("env-secret") && !result.stdout.contains("s3cret"))
        }
    }

    /// A server that asks for a password (SCRAM): a wrong one is one line naming the database and
    /// the server's reason, exit 1, no password anywhere; the right one from `PGPASSWORD` works.
    @Test(.enabled(if: TestPostgres.url != nil, "needs PostgreSQL"))
    func aWrongPasswordIsOneLineWithoutThePassword() async throws {
        let (url, folder) = try #require(TestPostgres.privateCluster())
        defer { TestPostgres.removeCluster(folder) }
        // The password, then SCRAM for every TCP connection (the socket stays trusted).
        try await TestPostgres.admin(url: url) { connection in
            try await connection.query("ALTER USER postgres PASSWORD 'right-pw'", logger: TestPostgres.logger)
        }
        try "local all all trust\nhost all all 127.0.0.1/32 scram-sha-256\n"
            .write(toFile: folder + "/data/pg_hba.conf", atomically: false, encoding: .utf8)
        try await TestPostgres.admin(url: url) { connection in
            try await connection.query("SELECT pg_reload_conf()", logger: TestPostgres.logger)
        }
        let location = try PostgresLocation(url: url)
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let wrong = "postgres://postgres:wrong-pw@127.0.0.1:\(location.port)/postgres?sslmode=disable"
        let refused = try cli.run(["list", "--db", wrong])
        #expect(refused.status == 1)
        #expect(refused.stderrLines.count == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("cannot open the database postgres://postgres@127.0.0.1:\(location.port)/postgres: "), "\(refused.stderr)")
        #expect(refused.stderr.contains("password authentication failed"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("wrong-pw") && !refused.stdout.contains("wrong-pw"))
        let viaEnvironment = try cli.run(["list", "--db", "postgres://postgres@127.0.0.1:\(location.port)/postgres?sslmode=disable"],
                                         environment: ["PGPASSWORD": "right-pw"])
        #expect(viaEnvironment.status == 0, "\(viaEnvironment.stderr)")
    }
}
