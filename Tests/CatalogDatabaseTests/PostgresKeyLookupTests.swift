import CatalogModel
import CatalogStore
import CatalogTestSupport
import Foundation
import PostgresNIO
import Testing
@testable import CatalogPostgres

/// The write path's statements read the rows a write names, not the catalogue: each reads a few
/// rows per key. The planner's statistics are refreshed after a large import (a catalogue it
/// has none for looks like a handful of rows, and its writes were planned as scans of it), and
/// items are reached by their keys whatever the statistics say.
@Suite(.enabled(if: TestPostgres.url != nil, "needs PostgreSQL"))
struct PostgresKeyLookupTests {
    static let shelves = 1_000
    static let booksPerShelf = 4

    /// A bookshelf catalogue named `name` of ``shelves`` shelves of capacity 8.
    static func catalogue(_ name: String) -> Catalog {
        Catalog(name: name, sections: (0..<shelves).map { shelf in
            Section(id: "s\(shelf)", kind: .bookshelf, capacity: 8, items: (0..<booksPerShelf).map { book in
                let id = "b\(shelf * booksPerShelf + book)"
                return Item(id: id, content: .book(Book(title: "Book \(id)", cover: "\(id).jpg")))
            })
        })
    }

    /// Rows the plan of `query` read from tables `item` and `section` and their indexes, run
    /// with EXPLAIN ANALYZE in a transaction that is rolled back.
    static func rowsRead(by query: PostgresQuery, on connection: PostgresConnection) async throws -> Int {
        let explained = PostgresQuery(unsafeSQL: "EXPLAIN (ANALYZE, FORMAT JSON) " + query.sql, binds: query.binds)
        var text = ""
        try await connection.query("BEGIN", logger: TestPostgres.logger)
        do {
            for try await line in try await connection.query(explained, logger: TestPostgres.logger).decode(String.self) { text += line }
        } catch {
            try? await connection.query("ROLLBACK", logger: TestPostgres.logger)
            throw error
        }
        try await connection.query("ROLLBACK", logger: TestPostgres.logger)
        if ProcessInfo.processInfo.environment["SHOW_PLANS"] != nil { print(text) }
        let plans = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        func read(_ node: [String: Any]) -> Int {
            let relation = node["Relation Name"] as? String
            let index = node["Index Name"] as? String
            let counted = ["item", "section"].contains(relation ?? "")
                || (relation == nil && index.map { $0.hasPrefix("item_") || $0.hasPrefix("section_") } == true)
            let loops = node["Actual Loops"] as? Int ?? 1
            var rows = 0
            if counted {
                rows += (node["Actual Rows"] as? Int ?? 0) * loops
                rows += node["Rows Removed by Filter"] as? Int ?? 0
                rows += node["Rows Removed by Index Recheck"] as? Int ?? 0
            }
            for child in node["Plans"] as? [[String: Any]] ?? [] { rows += read(child) }
            return rows
        }
        return plans.reduce(0) { $0 + read($1["Plan"] as? [String: Any] ?? [:]) }
    }

    /// Rows of tables `item` and `section` read by `query` and every statement it runs (a
    /// function's too), by scans and through indexes, as the server's statistics count them; in
    /// a transaction that is rolled back. The most of two runs: with every statement planned for
    /// its arguments, and with generic plans (which a function's statements get after their
    /// first five runs on a connection).
    static func rowsReadByEveryStatement(of query: PostgresQuery, on connection: PostgresConnection) async throws -> Int {
        /// The rows read so far: this connection's counts are sent to the server's statistics
        /// when it is idle, at once after `pg_stat_force_next_flush()`.
        func rowsRead() async throws -> Int {
            try await connection.query("SELECT pg_stat_force_next_flush()", logger: TestPostgres.logger)
            try await connection.query("SELECT pg_stat_clear_snapshot()", logger: TestPostgres.logger)
            var rows = 0
            for try await read in try await connection.query("""
                SELECT (sum(coalesce(seq_tup_read, 0)) + sum(coalesce(idx_tup_fetch, 0)))::bigint
                FROM pg_stat_user_tables WHERE relname IN ('item', 'section')
                """, logger: TestPostgres.logger).decode(Int64.self) { rows = Int(read) }
            return rows
        }
        var most = 0
        for mode in ["force_custom_plan", "force_generic_plan"] {
            try await connection.query(PostgresQuery(unsafeSQL: "SET plan_cache_mode = \(mode)"), logger: TestPostgres.logger)
            let before = try await rowsRead()
            try await connection.query("BEGIN", logger: TestPostgres.logger)
            do {
                for try await _ in try await connection.query(query, logger: TestPostgres.logger) {}
            } catch {
                try? await connection.query("ROLLBACK", logger: TestPostgres.logger)
                try? await connection.query("RESET plan_cache_mode", logger: TestPostgres.logger)
                throw error
            }
            try await connection.query("ROLLBACK", logger: TestPostgres.logger)
            most = max(most, try await rowsRead() - before)
        }
        try await connection.query("RESET plan_cache_mode", logger: TestPostgres.logger)
        return most
    }

    @Test func writeStatementsReadTheRowsTheyNameOnACatalogueJustImported() async throws {
        try await TestPostgres.withNewDatabase { url, connection in
            let store = try await PostgresCatalogStore.open(url: url, maximumConnections: 2)
            defer { store.close() }
            try await check(store, connection)
        }
    }

    func check(_ store: PostgresCatalogStore, _ connection: PostgresConnection) async throws {
        // Autovacuum kept out of it: the store's refresh after the import is what is tested.
        for table in ["item", "section"] {
            try await connection.query(PostgresQuery(unsafeSQL: "ALTER TABLE \(table) SET (autovacuum_enabled = false)"), logger: TestPostgres.logger)
        }
        _ = try await store.replace(Self.catalogue("known"))
        _ = try await store.replace(Self.catalogue("hot"))
        var row: (Int64, Int64)?
        for try await found in try await connection.query("SELECT pk, revision FROM catalog WHERE name = 'hot'", logger: TestPostgres.logger)
            .decode((Int64, Int64).self) { row = found }
        let (catalogPK, revision) = try #require(row)

        // Four moves' worth of keys: a book and a shelf each, and one section by position.
        let books = ["b1", "b901", "b2002", "b3999"]
        let sections = ["s7", "s300", "s512", "s998"]
        let bound = 16 * (books.count + sections.count + 1)

        let load = PreparedStatements.Sections(catalogPK: catalogPK, sections: sections, positions: [44], items: books)
        let loadRows = try await Self.rowsRead(by: PostgresQuery(unsafeSQL: PreparedStatements.Sections.sql, binds: try load.makeBindings()),
                                               on: connection)
        #expect(loadRows <= bound, "the load read \(loadRows) rows")

        var keys: [String: (Int64, Int64)] = [:]
        for try await (id, pk, version) in try await connection.query("""
            SELECT id, pk, version FROM section WHERE catalog_pk = \(catalogPK) AND id = ANY(\(sections))
            """, logger: TestPostgres.logger).decode((String, Int64, Int64).self) { keys[id] = (pk, version) }
        var write = PreparedStatements.GroupWrite(catalogPK: catalogPK, channel: PostgresCatalogStore.channel, notifiedName: "hot")
        for (part, shelf) in sections.enumerated() {
            let (pk, version) = try #require(keys[shelf])
            write.reads.parts.append(Int32(part))
            write.reads.sections.append(pk)
            write.reads.versions.append(version)
            write.changedSections.parts.append(Int32(part))
            write.changedSections.sections.append(pk)
        }
        write.absentItems = ([0], ["new-book"])
        write.gone = ([0], [books[0]])
        for (part, (book, shelf)) in zip(books.dropFirst(), sections).enumerated() {
            write.rows.append(Item(id: book, content: .book(Book(title: "Moved", cover: "m.jpg"))), section: shelf, key: 1, part: Int32(part))
        }
        for part in sections.indices {
            write.entryParts.append(Int32(part))
            write.journal.append { row in
                row.integer("entry", part)
                row.integer("part", part)
                row.text("patch", "{}")
            }
        }
        let writeRows = try await Self.rowsRead(by: PostgresQuery(unsafeSQL: PreparedStatements.GroupWrite.sql, binds: try write.makeBindings()),
                                                on: connection)
        #expect(writeRows <= bound, "the group write read \(writeRows) rows")
        // The plan above does not show the statements of the function that claims the
        // revisions; the server's counts of rows read do.
        let claimRows = try await Self.rowsReadByEveryStatement(of: PostgresQuery(unsafeSQL: PreparedStatements.GroupWrite.sql,
                                                                                  binds: try write.makeBindings()), on: connection)
        #expect(claimRows <= 2 * bound, "the group write and its claim read \(claimRows) rows")

        for query in [PostgresCatalogStore.deleteRows(of: "item", ids: books, catalogPK: catalogPK),
                      PostgresCatalogStore.deleteRows(of: "section", ids: sections, catalogPK: catalogPK),
                      PostgresCatalogStore.sectionsBreakingRules(sections, catalogPK: catalogPK)] {
            let read = try await Self.rowsRead(by: query, on: connection)
            #expect(read <= bound, "\(query.sql) read \(read) rows")
        }
        // The rollbacks left the catalogue as it was.
        #expect(try await store.catalog(named: "hot") == Self.catalogue("hot").with(revision: Int(revision)))
    }
}
