import CatalogModel
import CatalogStore
import Foundation
import GRDB

/// `catalog-bench writes`: moving books in a large catalogue — by default 1M books on 20,000
/// shelves of capacity 100, in a WAL database file — one move per transaction (p50 and p99
/// latency, including the capacity check, the journal and the changeset), and batches of 1,000
/// moves. The baseline, in the same run, on a copy of the database file with dense positions: the bare SQL of the same kind of move (shift the source shelf down, the target shelf
/// up, update the row) through GRDB prepared statements,
/// with no checks, no journal and no changeset.
package struct WriteBenchmark: Sendable {
    package var books: Int
    package var shelves: Int
    package var capacity: Int
    package var moves: Int
    package var batches: Int
    package var batchSize: Int

    package init(books: Int = 1_000_000, shelves: Int = 20_000, capacity: Int = 100, moves: Int = 2_000,
                batches: Int = 5, batchSize: Int = 1_000) {
        self.books = books
        self.shelves = shelves
        self.capacity = capacity
        self.moves = moves
        self.batches = batches
        self.batchSize = batchSize
    }

    /// The suite's catalogue: the books on shelves of ``capacity``.
    var catalog: Catalog {
        var catalog = Catalog.generated(name: "shelves", items: books, sections: shelves, kind: .bookshelf, seed: 3)
        for s in catalog.sections.indices { catalog.sections[s].capacity = capacity }
        return catalog
    }

    package func run(log: (String) -> Void = { _ in }) throws -> [BenchmarkResult] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-bench-writes-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let catalog = self.catalog
        let path = folder.appendingPathComponent("shelves.sqlite").path
        let store = try CatalogStore(path: path)
        log("writes: storing \(books.abbreviated) books on \(shelves.abbreviated) shelves (setup, not timed)")
        try store.replace(catalog)
        // The baseline's own copy of the file, with dense positions (0, 1, 2, … in each shelf) as
        // the two-shift move needs them: CatalogKit's positions are order keys (migration 0005),
        // which the shifts would scramble. A file of its own, so neither side's log and
        // checkpoints land on the other.
        let barePath = folder.appendingPathComponent("bare.sqlite").path
        try DatabaseQueue(path: path).writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        try FileManager.default.copyItem(atPath: path, toPath: barePath)
        let pool = try DatabasePool(path: barePath)
        try pool.write { db in try db.execute(sql: "UPDATE item SET position = (position >> 32) - 1") }

        var mine = ShelfContents(contents: catalog.sections.map { $0.items.map(\.id) }, random: SplitMix64(seed: 11), capacity: capacity)
        var theirs = ShelfContents(contents: mine.contents, random: SplitMix64(seed: 12), capacity: capacity)
        let ids = catalog.sections.map(\.id)

        log("writes: \(moves) single moves, in blocks of 100 alternating with the bare SQL move")
        // Blocks, not single alternations: two connections writing in turn would each find the
        // other's changes and drop its page cache every time, which no app with one writer does.
        var moveTimes: [Double] = [], bareTimes: [Double] = []
        for block in 0..<max(1, moves / 100) {
            for _ in 0..<min(100, moves - block * 100) {
                let move = mine.randomMove()
                moveTimes.append(try Clock.elapsed {
                    try store.move(item: move.book, toSection: ids[move.to], index: move.index, in: catalog.name)
                })
            }
            for _ in 0..<min(100, moves - block * 100) {
                let move = theirs.randomMove()
                bareTimes.append(try Clock.elapsed {
                    try pool.write { db in try Self.bareMove(move.book, toSection: ids[move.to], index: move.index, catalog: catalog.name, db: db) }
                })
            }
        }

        log("writes: \(batches) batches of \(batchSize) moves")
        var batchTimes: [Double] = [], bareBatchTimes: [Double] = []
        for _ in 0..<batches {
            var operations: [BatchOperation] = []
            for _ in 0..<batchSize {
                let move = mine.randomMove()
                operations.append(.moveItem(id: move.book, toSection: ids[move.to], index: move.index))
            }
            batchTimes.append(try Clock.elapsed { try store.apply(Batch(operations: operations), to: catalog.name) })
            var bare: [(String, Int, Int)] = []
            for _ in 0..<batchSize {
                let move = theirs.randomMove()
                bare.append((move.book, move.to, move.index))
            }
            bareBatchTimes.append(try Clock.elapsed {
                try pool.write { db in
                    for (book, to, index) in bare { try Self.bareMove(book, toSection: ids[to], index: index, catalog: catalog.name, db: db) }
                }
            })
        }
        try store.checkIntegrity()

        return Self.results(label: "\(books.abbreviated) books on \(shelves.abbreviated) shelves",
                            baseline: "bare two-shift SQL move (dense positions, no checks)", moveTimes: moveTimes, bareTimes: bareTimes,
                            batchTimes: batchTimes, bareBatchTimes: bareBatchTimes, batchSize: batchSize)
    }

    /// The suite's four rows: a move's p50 and p99 against the bare move's, and a batch against
    /// the bare moves in one transaction and against single moves.
    static func results(label: String, baseline: String, moveTimes: [Double], bareTimes: [Double],
                        batchTimes: [Double], bareBatchTimes: [Double], batchSize: Int) -> [BenchmarkResult] {
        [
            BenchmarkResult(suite: "writes", name: "\(label): move p50", medianMS: Clock.percentile(moveTimes, 0.5),
                            baseline: baseline + " p50", baselineMedianMS: Clock.percentile(bareTimes, 0.5), items: 1),
            BenchmarkResult(suite: "writes", name: "\(label): move p99", medianMS: Clock.percentile(moveTimes, 0.99),
                            baseline: baseline + " p99", baselineMedianMS: Clock.percentile(bareTimes, 0.99), items: 1),
            BenchmarkResult(suite: "writes", name: "\(label): batch of \(batchSize.abbreviated) moves", medianMS: Clock.median(batchTimes),
                            baseline: "\(batchSize.abbreviated) bare SQL moves in one transaction", baselineMedianMS: Clock.median(bareBatchTimes),
                            items: batchSize),
            BenchmarkResult(suite: "writes", name: "\(label): batch of \(batchSize.abbreviated) moves", medianMS: Clock.median(batchTimes),
                            baseline: "\(batchSize.abbreviated) single moves (median × \(batchSize.abbreviated))",
                            baselineMedianMS: Clock.percentile(moveTimes, 0.5) * Double(batchSize), items: batchSize),
        ]
    }

    /// The same move as bare SQL: close the gap in the source shelf, open one in the target shelf,
    /// put the book there — three UPDATEs, the least SQLite can do with dense positions.
    static func bareMove(_ book: String, toSection section: String, index: Int, catalog: String, db: Database) throws {
        let catalogPK = try Int64.fetchOne(db.cachedStatement(sql: "SELECT pk FROM catalog WHERE name = ?"), arguments: [catalog])!
        let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT pk, section_pk, position FROM item WHERE catalog_pk = ? AND id = ?"),
                                   arguments: [catalogPK, book])!
        let pk: Int64 = row[0], from: Int64 = row[1], position: Int = row[2]
        let to = try Int64.fetchOne(db.cachedStatement(sql: "SELECT pk FROM section WHERE catalog_pk = ? AND id = ?"),
                                    arguments: [catalogPK, section])!
        try db.cachedStatement(sql: "UPDATE item SET position = position - 1 WHERE section_pk = ? AND position > ?").execute(arguments: [from, position])
        try db.cachedStatement(sql: "UPDATE item SET position = position + 1 WHERE section_pk = ? AND position >= ?").execute(arguments: [to, index])
        try db.cachedStatement(sql: "UPDATE item SET section_pk = ?, position = ? WHERE pk = ?").execute(arguments: [to, index, pk])
    }
}

/// Where every book of one catalogue is, so that each move is a valid one.
struct ShelfContents {
    var contents: [[String]]
    var random: SplitMix64
    let capacity: Int

    /// A random book and a random other shelf with room, and an index in it.
    mutating func randomMove() -> (book: String, from: Int, fromIndex: Int, to: Int, index: Int) {
        while true {
            let from = Int.random(in: 0..<contents.count, using: &random)
            guard !contents[from].isEmpty else { continue }
            let to = Int.random(in: 0..<contents.count, using: &random)
            guard to != from, contents[to].count < capacity else { continue }
            let fromIndex = Int.random(in: 0..<contents[from].count, using: &random)
            let move = (contents[from][fromIndex], from, fromIndex, to, Int.random(in: 0...contents[to].count, using: &random))
            contents[from].remove(at: fromIndex)
            contents[to].insert(move.0, at: move.4)
            return move
        }
    }
}
