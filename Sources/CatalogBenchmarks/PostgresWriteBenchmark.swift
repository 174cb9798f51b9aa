import CatalogModel
import CatalogPostgres
import CatalogStore
import Foundation
import Logging
import PostgresNIO

/// `catalog-bench writes --postgres URL`: the writes suite on PostgreSQL — the same catalogue
/// (books on shelves of capacity 100, half full), single moves through ``PostgresCatalogStore``
/// (p50, p99) and batches of 1,000 moves. The baseline, in the same run and database: tables of
/// their own with dense positions and one catalogue row as the lock, and the bare SQL of a move
/// as five statements in a transaction (lock the catalogue row, find the book, shift the source
/// shelf down and the target shelf up, put the book there), with no checks, no journal and no
/// changeset — for a batch, every move's statements in one transaction.
package struct PostgresWriteBenchmark: Sendable {
    package var url: String
    /// The catalogue, the moves and the batches, as the SQLite suite's.
    package var sizes: WriteBenchmark

    package init(url: String, sizes: WriteBenchmark) {
        self.url = url
        self.sizes = sizes
    }

    package func run(log: @escaping @Sendable (String) -> Void = { _ in }) throws -> [BenchmarkResult] {
        try LiveBenchmark.blocking { try await self.measure(log: log) }
    }

    private static let logger = Logger(label: "catalog-bench", factory: { _ in SwiftLogNoOpLogHandler() })

    private func measure(log: @escaping @Sendable (String) -> Void) async throws -> [BenchmarkResult] {
        let (catalog, books, shelves, capacity) = (sizes.catalog, sizes.books, sizes.shelves, sizes.capacity)
        let (moves, batches, batchSize) = (sizes.moves, sizes.batches, sizes.batchSize)
        let store = try await PostgresCatalogStore.open(url: url, maximumConnections: 2)
        defer { store.close() }
        log("writes (PostgreSQL): storing \(books.abbreviated) books on \(shelves.abbreviated) shelves (setup, not timed)")
        _ = try await store.replace([(catalog, nil)], progress: nil)

        let location = try PostgresLocation(url: url)
        let bare = try await PostgresConnection.connect(configuration: try location.connectionConfiguration(), id: 1, logger: Self.logger)
        try await createBareTables(like: catalog, on: bare)

        var mine = ShelfContents(contents: catalog.sections.map { $0.items.map(\.id) }, random: SplitMix64(seed: 11), capacity: capacity)
        var theirs = ShelfContents(contents: mine.contents, random: SplitMix64(seed: 12), capacity: capacity)

        log("writes (PostgreSQL): \(moves) single moves, in blocks of 100 alternating with the bare SQL move")
        var moveTimes: [Double] = [], bareTimes: [Double] = []
        for block in 0..<max(1, moves / 100) {
            for _ in 0..<min(100, moves - block * 100) {
                let move = mine.randomMove()
                let start = DispatchTime.now().uptimeNanoseconds
                try await store.move(item: move.book, toSection: catalog.sections[move.to].id, index: move.index, in: catalog.name)
                moveTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
            for _ in 0..<min(100, moves - block * 100) {
                let move = theirs.randomMove()
                let start = DispatchTime.now().uptimeNanoseconds
                try await bareMoves([(move.book, move.to, move.index)], on: bare)
                bareTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
        }

        log("writes (PostgreSQL): \(batches) batches of \(batchSize) moves")
        var batchTimes: [Double] = [], bareBatchTimes: [Double] = []
        for _ in 0..<batches {
            var operations: [BatchOperation] = []
            for _ in 0..<batchSize {
                let move = mine.randomMove()
                operations.append(.moveItem(id: move.book, toSection: catalog.sections[move.to].id, index: move.index))
            }
            var start = DispatchTime.now().uptimeNanoseconds
            try await store.apply(Batch(operations: operations), to: catalog.name)
            batchTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            let moves = (0..<batchSize).map { _ in theirs.randomMove() }.map { ($0.book, $0.to, $0.index) }
            start = DispatchTime.now().uptimeNanoseconds
            try await bareMoves(moves, on: bare)
            bareBatchTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        try await store.checkIntegrity()
        try await bare.query("DROP TABLE bench_bare_item, bench_bare_catalog", logger: Self.logger)
        try await bare.close()

        return WriteBenchmark.results(label: "PostgreSQL, \(books.abbreviated) books on \(shelves.abbreviated) shelves",
                                      baseline: "bare five-statement SQL move (dense positions, no checks)",
                                      moveTimes: moveTimes, bareTimes: bareTimes, batchTimes: batchTimes,
                                      bareBatchTimes: bareBatchTimes, batchSize: batchSize)
    }

    /// The baseline's tables: every book with its shelf's index and its dense position, and one
    /// catalogue row that each move locks first.
    private func createBareTables(like catalog: Catalog, on connection: PostgresConnection) async throws {
        try await connection.query("DROP TABLE IF EXISTS bench_bare_item, bench_bare_catalog", logger: Self.logger)
        try await connection.query("CREATE TABLE bench_bare_catalog (pk INTEGER PRIMARY KEY, revision BIGINT NOT NULL)", logger: Self.logger)
        try await connection.query("INSERT INTO bench_bare_catalog VALUES (1, 0)", logger: Self.logger)
        try await connection.query("""
            CREATE TABLE bench_bare_item (id TEXT PRIMARY KEY, shelf INTEGER NOT NULL, position INTEGER NOT NULL)
            """, logger: Self.logger)
        var ids: [String] = [], shelves: [Int32] = [], positions: [Int32] = []
        func flush() async throws {
            try await connection.query("""
                INSERT INTO bench_bare_item SELECT * FROM unnest(\(ids)::text[], \(shelves)::integer[], \(positions)::integer[])
                """, logger: Self.logger)
            (ids, shelves, positions) = ([], [], [])
        }
        for (s, section) in catalog.sections.enumerated() {
            for (i, item) in section.items.enumerated() {
                ids.append(item.id)
                shelves.append(Int32(s))
                positions.append(Int32(i))
            }
            if ids.count >= 50_000 { try await flush() }
        }
        if !ids.isEmpty { try await flush() }
        try await connection.query("CREATE INDEX ON bench_bare_item (shelf, position)", logger: Self.logger)
        try await connection.query("ANALYZE bench_bare_item, bench_bare_catalog", logger: Self.logger)
    }

    /// `moves` (book, target shelf, index) as bare SQL in one transaction, five statements each.
    private func bareMoves(_ moves: [(String, Int, Int)], on connection: PostgresConnection) async throws {
        try await connection.query("BEGIN", logger: Self.logger)
        for (book, to, index) in moves {
            try await connection.query("SELECT revision FROM bench_bare_catalog WHERE pk = 1 FOR UPDATE", logger: Self.logger)
            var found: (Int32, Int32)?
            for try await row in try await connection.query("SELECT shelf, position FROM bench_bare_item WHERE id = \(book)",
                                                            logger: Self.logger).decode((Int32, Int32).self) { found = row }
            guard let (from, position) = found else { throw ClusterBenchmark.Failure(description: "the bare table lost book \(book)") }
            try await connection.query("""
                UPDATE bench_bare_item SET position = position - 1 WHERE shelf = \(from) AND position > \(position)
                """, logger: Self.logger)
            try await connection.query("""
                UPDATE bench_bare_item SET position = position + 1 WHERE shelf = \(Int32(to)) AND position >= \(Int32(index))
                """, logger: Self.logger)
            try await connection.query("""
                UPDATE bench_bare_item SET shelf = \(Int32(to)), position = \(Int32(index)) WHERE id = \(book)
                """, logger: Self.logger)
        }
        try await connection.query("COMMIT", logger: Self.logger)
    }
}
