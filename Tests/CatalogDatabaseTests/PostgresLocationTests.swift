import CatalogStore
import Foundation
import Testing
@testable import CatalogPostgres

/// Reading `--db postgres://…`: every part, the password's three sources in libpq's order, and
/// a description that never holds the password.
@Suite struct PostgresLocationTests {
    @Test func theURLsParts() throws {
        let location = try PostgresLocation(url: "postgresql://ann:p%40ss@db.example:6543/cata%20logs?sslmode=require", environment: [:], home: "/nowhere")
        #expect(location.host == "db.example" && location.port == 6543 && location.user == "ann" && location.database == "cata logs")
        #expect(location.tls == .require && location.socketFolder == nil)
        #expect(location.password == "p@ss")
        #expect(location.description == "postgres://ann@db.example:6543/cata%20logs")
        let socket = try PostgresLocation(url: "postgres://bob@/shelves?host=/run/postgresql&port=5433", environment: [:], home: "/nowhere")
        #expect(socket.socketFolder == "/run/postgresql" && socket.port == 5433 && socket.database == "shelves" && socket.tls == .disable)
        // No database: the user's name, as libpq does.
        #expect(try PostgresLocation(url: "postgres://carol@localhost", environment: [:], home: "/nowhere").database == "carol")
    }

    @Test func thePasswordComesFromTheURLThenPGPASSWORDThenThePasswordFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pgpass-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try """
            # comment
            other:5432:*:ann:wrong
            db.example:5432:shelves:ann:from\\:file
            *:*:*:*:fallback
            """.write(to: folder.appendingPathComponent(".pgpass"), atomically: true, encoding: .utf8)
        let url = "postgres://ann@db.example/shelves"
        #expect(try PostgresLocation(url: url, environment: [:], home: folder.path).password == "from:file")
        #expect(try PostgresLocation(url: "postgres://zed@elsewhere/x", environment: [:], home: folder.path).password == "fallback")
        #expect(try PostgresLocation(url: url, environment: ["PGPASSWORD": "env"], home: folder.path).password == "env")
        #expect(try PostgresLocation(url: "postgres://ann:inline@db.example/shelves", environment: ["PGPASSWORD": "env"], home: folder.path).password == "inline")
        #expect(try PostgresLocation(url: url, environment: [:], home: "/nowhere").password == nil)
    }

    @Test func aBadURLIsRefusedWithoutItsPassword() {
        for (url, reason) in [("postgres://a:secret@h:0/x", "the port 0 is not a port number"),
                              ("postgres://a:secret@h/x?sslmode=maybe", "sslmode maybe is not one of disable, prefer, require"),
                              ("mysql://a:secret@h/x", "not a PostgreSQL URL")] {
            #expect {
                try PostgresLocation(url: url, environment: [:], home: "/nowhere")
            } throws: { error in
                guard case StoreError.cannotOpen(let path, let message)? = error as? StoreError else { return false }
                return message.contains(reason) && !path.contains("secret")
            }
        }
    }

    @Test func migrationFilesSplitIntoStatements() {
        let script = """
            -- a comment; with a semicolon
            CREATE TABLE t (a TEXT DEFAULT ';');
            /* block; comment */
            CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION 'no; way'; END;
            $$;
            CREATE FUNCTION g() RETURNS int LANGUAGE sql AS $body$ SELECT 1; $body$;
            SELECT "odd;name" FROM t
            """
        let statements = SQLScript.statements(script)
        #expect(statements.count == 4)
        #expect(statements[0].hasSuffix("CREATE TABLE t (a TEXT DEFAULT ';')"))
        #expect(statements[1].contains("RAISE EXCEPTION 'no; way'; END;\n$$"))
        #expect(statements[2] == "CREATE FUNCTION g() RETURNS int LANGUAGE sql AS $body$ SELECT 1; $body$")
        #expect(statements[3] == #"SELECT "odd;name" FROM t"#)
        #expect(SQLScript.statements("  -- only a comment\n;\n").isEmpty)
    }
}
