import CatalogDiff
import CatalogModel
import Foundation
import GRDB
import Testing
@testable import CatalogStore

/// The quick path for a book moved within its shelf or to another shelf with room gives exactly what the general
/// path gives: result, changeset, stored catalogue and journal.
@Suite("Quick moves")
struct ShelfMoveTests {
    struct Rollback: Error {}

    enum Path { case quick, general, refused }

    /// Applies `batch` to the store's catalogue "shelf" (which is `current`) and checks the
    /// outcome against the general path's on the same state, rolled back: the same result,
    /// stored catalogue and changeset, or the same error with nothing written. Says which path
    /// the store took (`quick` tells, on the same state, rolled back).
    static func applyComparingWithTheGeneralPath(_ batch: Batch, to store: CatalogStore, current: Catalog,
                                                 quick: (Batch, String, Database) throws -> WriteResult?,
                                                 sourceLocation: SourceLocation = #_sourceLocation) throws -> Path {
        var expected: Result<(WriteResult, Catalog), StoreError>?
        var tookQuickPath = false
        _ = try? store.writer.write { db in
            tookQuickPath = try quick(batch, "shelf", db) != nil
            throw Rollback()
        }
        _ = try? store.writer.write { db in
            do {
                let result = try CatalogStore.commit(try CatalogStore.edit("shelf", with: batch, in: db), catalog: "shelf", in: db)
                expected = .success((result, try CatalogStore.loadCatalog(named: "shelf", in: db)))
            } catch let error as StoreError {
                expected = .failure(error)
            }
            throw Rollback()
        }
        switch (Result { () throws(StoreError) in try store.apply(batch, to: "shelf") }, expected!) {
        case (.success(let result), .success(let (generalResult, generalCatalog))):
            #expect(result == generalResult, "\(batch)", sourceLocation: sourceLocation)
            #expect(try store.catalog(named: "shelf") == generalCatalog, sourceLocation: sourceLocation)
            #expect(result.changeset.violations(from: current, to: generalCatalog) == [], sourceLocation: sourceLocation)
            return tookQuickPath ? .quick : .general
        case (.failure(let error), .failure(let generalError)):
            #expect(error == generalError, sourceLocation: sourceLocation)
            #expect(!tookQuickPath, sourceLocation: sourceLocation)
            #expect(try store.catalog(named: "shelf") == current, sourceLocation: sourceLocation)
            return .refused
        case (let got, let wanted):
            Issue.record("\(batch): store \(got), general path \(wanted)", sourceLocation: sourceLocation)
            return .refused
        }
    }

    /// Moves to any shelf, or only within the book's own shelf (where neighbours trading places
    /// is common, and the diff chooses which of the two moved).
    @Test("random moves: the quick path and the general path agree, and the journal rebuilds every revision",
          arguments: [false, true])
    func quickEqualsGeneral(withinShelf: Bool) throws {
        var random = SplitMix64(seed: withinShelf ? 78 : 77)
        let store = try CatalogStore.inMemory()
        var catalog = Catalog.generated(name: "shelf", items: 60, sections: 12, kind: .bookshelf, seed: 5)
        for s in catalog.sections.indices { catalog.sections[s].capacity = 4 + s % 4 }
        // Make the capacities hold: trim shelves that hold too many.
        for s in catalog.sections.indices { catalog.sections[s].items = Array(catalog.sections[s].items.prefix(catalog.sections[s].capacity!)) }
        let first = try store.replace(catalog).revision
        var quick = 0, general = 0
        for _ in 0..<400 {
            let current = try store.catalog(named: "shelf")
            let from = current.sections[Int.random(in: 0..<current.sections.count, using: &random)]
            guard !from.items.isEmpty else { continue }
            let book = from.items[Int.random(in: 0..<from.items.count, using: &random)].id
            let to = withinShelf ? from : current.sections[Int.random(in: 0..<current.sections.count, using: &random)]
            let index: Int? = Bool.random(using: &random) ? nil : Int.random(in: -1...(to.items.count + 1), using: &random)
            let policy = [MovePolicy.reject, .displace, .swap][Int.random(in: 0..<3, using: &random)]
            let base: Int? = Int.random(in: 0..<10, using: &random) == 0 ? current.revision - 1 : nil
            let batch = Batch(baseRevision: base, operations: [.moveItem(id: book, toSection: to.id, index: index, policy: policy)])

            switch try Self.applyComparingWithTheGeneralPath(batch, to: store, current: current, quick: CatalogStore.quickMove) {
            case .quick: quick += 1
            case .general: general += 1
            case .refused: break
            }
        }
        #expect(quick > 50 && general > 20, "quick \(quick), general \(general)")
        // The journal, mixing both kinds of entries, rebuilds the first revision from the last.
        let last = try store.catalog(named: "shelf")
        let changes = try store.changes(in: "shelf", since: first)
        #expect(changes.violations(from: catalog.withRevision(first), to: last) == [])
        for since in stride(from: last.revision - 1, to: first, by: -37) {
            #expect(try store.changes(in: "shelf", since: since).toRevision == last.revision)
        }
        try store.checkIntegrity()
    }
}

/// A batch of moves, each one the quick path takes, is placed move by move in SQL; with any
/// other, the general path decides the whole batch. Either way the store ends as the general
/// path leaves it, with the same changeset and a journal that rebuilds every revision.
@Suite("Quick batches of moves")
struct QuickBatchTests {
    @Test("random batches of moves: the quick path and the general path agree", arguments: [false, true])
    func quickBatchesEqualGeneral(roomy: Bool) throws {
        var random = SplitMix64(seed: roomy ? 91 : 92)
        let store = try CatalogStore.inMemory()
        var catalog = Catalog.generated(name: "shelf", items: 60, sections: 12, kind: .bookshelf, seed: 7)
        for s in catalog.sections.indices {
            catalog.sections[s].capacity = roomy ? 12 : 5 + s % 3
            catalog.sections[s].items = Array(catalog.sections[s].items.prefix(catalog.sections[s].capacity!))
        }
        let first = try store.replace(catalog).revision
        var quick = 0, general = 0, refused = 0
        for _ in 0..<150 {
            let current = try store.catalog(named: "shelf")
            var operations: [BatchOperation] = []
            for _ in 0..<Int.random(in: 2...12, using: &random) {
                let from = current.sections[Int.random(in: 0..<current.sections.count, using: &random)]
                guard let book = from.items.randomElement(using: &random)?.id else { continue }
                let to = current.sections[Int.random(in: 0..<current.sections.count, using: &random)]
                let index: Int? = Bool.random(using: &random) ? nil : Int.random(in: 0...(to.items.count + (roomy ? 0 : 1)), using: &random)
                let policy = Int.random(in: 0..<8, using: &random) == 0 ? MovePolicy.swap : .reject
                operations.append(.moveItem(id: Int.random(in: 0..<60, using: &random) == 0 ? "nope" : book,
                                            toSection: to.id, index: index, policy: policy))
            }
            let batch = Batch(operations: operations)
            switch try ShelfMoveTests.applyComparingWithTheGeneralPath(batch, to: store, current: current, quick: CatalogStore.quickMoves) {
            case .quick: quick += 1
            case .general: general += 1
            case .refused: refused += 1
            }
        }
        // Roomy shelves take most batches quickly; tight ones send most to the general path.
        #expect(roomy ? quick > 50 && general + refused > 5 : quick > 0 && general + refused > 50,
                "quick \(quick), general \(general), refused \(refused)")
        let last = try store.catalog(named: "shelf")
        #expect(try store.changes(in: "shelf", since: first).violations(from: catalog.withRevision(first), to: last) == [])
        for since in stride(from: last.revision - 1, to: first, by: -7) {
            let changes = try store.changes(in: "shelf", since: since)
            #expect(changes.toRevision == last.revision)
        }
        try store.checkIntegrity()
    }
}

extension Catalog {
    func withRevision(_ revision: Int) -> Catalog {
        var catalog = self
        catalog.revision = revision
        return catalog
    }
}

/// Threads sharing one store: their writes are grouped into shared transactions, and each still
/// lands or fails on its own.
@Suite("Grouped writes")
struct GroupedWriteTests {
    @Test("eight threads writing through one store: every write lands once or fails alone")
    func threadsShareTransactions() throws {
        let (path, folder) = try temporaryDatabasePath("grouped")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try CatalogStore(path: path)
        var catalog = Catalog(name: "shelf", sections: (0..<8).map { s in
            Section(id: "s\(s)", kind: .bookshelf, capacity: 1_000, items: (0..<20).map { i in
                Item(id: "b\(s)-\(i)", content: .book(Book(title: "Book \(s)-\(i)", cover: "c")))
            })
        })
        catalog.revision = try store.replace(catalog).revision
        let first = catalog

        let threads = 8, writesPerThread = 40
        let log = Log()
        let done = DispatchGroup()
        for t in 0..<threads {
            done.enter()
            Thread {
                defer { done.leave() }
                for n in 0..<writesPerThread {
                    // Each thread moves its own shelf's books to the next shelf (quick path),
                    // sometimes inside a two-operation batch (editor path), sometimes an unknown
                    // book (refused alone).
                    let book = "b\(t)-\(n % 20)"
                    let operations: [BatchOperation]
                    switch n % 5 {
                    case 3: operations = [.moveItem(id: book, toSection: "s\((t + 2) % 8)", index: 0),
                                          .moveItem(id: book, toSection: "s\(t)", index: nil)]
                    case 4: operations = [.moveItem(id: "missing-\(t)-\(n)", toSection: "s0", index: nil)]
                    default: operations = [.moveItem(id: book, toSection: "s\((t + 1) % 8)", index: nil)]
                    }
                    do {
                        log.landed(try store.apply(Batch(operations: operations), to: "shelf").revision)
                    } catch StoreError.rejected {
                        log.refused()
                    } catch {
                        log.failed("\(error)")
                    }
                }
            }.start()
        }
        done.wait()
        let (revisions, refused, failures) = log.snapshot()
        #expect(failures.isEmpty, "\(failures)")
        // Every landed write got its own revision, one after another, and the refused ones none.
        #expect(revisions.sorted() == Array(first.revision + 1...first.revision + revisions.count))
        #expect(refused == threads * writesPerThread / 5)
        let last = try store.catalog(named: "shelf")
        #expect(last.revision == first.revision + revisions.count)
        #expect(last.itemCount == first.itemCount)
        #expect(try store.changes(in: "shelf", since: first.revision).violations(from: first, to: last) == [])
        try store.checkIntegrity()
        #expect(store.combiner.largestGroup > 1, "the writes never overlapped")
    }

    final class Log: @unchecked Sendable {
        private let lock = NSLock()
        private var revisions: [Int] = []
        private var refusals = 0
        private var failures: [String] = []

        func landed(_ revision: Int) { lock.withLock { revisions.append(revision) } }
        func refused() { lock.withLock { refusals += 1 } }
        func failed(_ message: String) { lock.withLock { failures.append(message) } }
        func snapshot() -> ([Int], Int, [String]) { lock.withLock { (revisions, refusals, failures) } }
    }
}

extension GroupedWriteTests {
    @Test("an edit that makes SQLite roll the shared transaction back fails its whole group, and nothing of it is written")
    func rolledBackGroup() throws {
        let (results, marks, largestGroup) = try groupBehindALeader { name, db in
            if name == "middle" { try db.execute(sql: "ROLLBACK") } else { try db.execute(sql: "INSERT INTO mark VALUES (?)", arguments: [name]) }
        }
        #expect(results == ["first": "ok", "before": "failed", "middle": "failed", "after": "failed"])
        #expect(largestGroup == 3)
        #expect(marks == ["first"])
    }

    @Test("an edit that writes and then fails is undone alone: the group runs again, each edit in a savepoint, and the others land")
    func failedEditInAGroup() throws {
        struct Refused: Error {}
        let runs = ByName<Int>()
        let (results, marks, largestGroup) = try groupBehindALeader { name, db in
            runs.update(name) { $0 = ($0 ?? 0) + 1 }
            try db.execute(sql: "INSERT INTO mark VALUES (?)", arguments: [name])
            if name == "middle" { throw Refused() }
        }
        #expect(results == ["first": "ok", "before": "ok", "middle": "failed", "after": "ok"])
        #expect(largestGroup == 3)
        #expect(marks.sorted() == ["after", "before", "first"])
        // Without savepoints "before" and "middle" ran, then the transaction was rolled back and
        // the whole group ran again.
        #expect(runs.all == ["before": 2, "middle": 2, "after": 1])
    }

    @Test("an edit that fails before writing a row fails alone, and its group runs once, without savepoints")
    func refusedEditInAGroup() throws {
        struct Refused: Error {}
        let runs = ByName<Int>()
        let (results, marks, largestGroup) = try groupBehindALeader { name, db in
            runs.update(name) { $0 = ($0 ?? 0) + 1 }
            // A read, as a refused edit's checks make, then the refusal.
            _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM mark")
            if name == "middle" { throw Refused() }
            try db.execute(sql: "INSERT INTO mark VALUES (?)", arguments: [name])
        }
        #expect(results == ["first": "ok", "before": "ok", "middle": "failed", "after": "ok"])
        #expect(largestGroup == 3)
        #expect(marks.sorted() == ["after", "before", "first"])
        #expect(runs.all == ["before": 1, "middle": 1, "after": 1])
    }

    /// Runs an edit "first" that leads and holds the transaction until three others — "before",
    /// "middle", "after", each running `body` — wait behind it in that order (none can lead while
    /// it does), so that those three form one group. Returns each one's outcome, the rows of the
    /// `mark` table afterwards and the largest group.
    func groupBehindALeader(_ body: @escaping @Sendable (String, Database) throws -> Void) throws
        -> (results: [String: String], marks: [String], largestGroup: Int) {
        let (path, folder) = try temporaryDatabasePath("group")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try CatalogStore(path: path)
        try store.writer.write { db in try db.execute(sql: "CREATE TABLE mark (name TEXT)") }
        let combiner = WriteCombiner<Void>()
        let release = DispatchSemaphore(value: 0)
        let results = ByName<String>()
        let done = DispatchGroup()
        func start(_ name: String, _ body: @escaping @Sendable (Database) throws -> Void) {
            done.enter()
            Thread {
                defer { done.leave() }
                do {
                    try combiner.write(store.writer) { db in try body(db) }
                    results.update(name) { $0 = "ok" }
                } catch {
                    results.update(name) { $0 = "failed" }
                }
            }.start()
        }
        let entered = DispatchSemaphore(value: 0)
        start("first") { db in
            try db.execute(sql: "INSERT INTO mark VALUES ('first')")
            entered.signal()
            release.wait()
        }
        guard entered.wait(timeout: .now() + 60) == .success else {
            Issue.record("the first edit never ran")
            release.signal()
            return ([:], [], 0)
        }
        for (index, name) in ["before", "middle", "after"].enumerated() {
            start(name) { db in try body(name, db) }
            let deadline = Date().addingTimeInterval(60)
            while combiner.waitingCount < index + 1 && Date() < deadline { usleep(1_000) }
        }
        release.signal()
        done.wait()
        let marks = try store.writer.read { db in try String.fetchAll(db, sql: "SELECT name FROM mark") }
        return (results.all, marks, combiner.largestGroup)
    }

    /// Values by name, written from several threads.
    final class ByName<Value>: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [String: Value] = [:]
        func update(_ name: String, _ change: (inout Value?) -> Void) { lock.withLock { change(&values[name]) } }
        var all: [String: Value] { lock.withLock { values } }
    }
}

extension GroupedWriteTests {
    /// A server's requests wait for the next group without holding a thread each, so a group can
    /// take in every request waiting, not just as many as a thread pool has threads (two or
    /// three on this machine); and blocking callers share the same groups.
    ///
    /// Alone it takes under a second. The limit only catches a hang: in the whole suite, with
    /// both cores busy, its tasks wait their turn behind every other test's for minutes.
    @Test("64 async writers and two blocking threads: groups take in the waiting requests, every write lands once or fails alone",
          .timeLimit(.minutes(20)))
    func asyncWritersShareGroups() async throws {
        let (path, folder) = try temporaryDatabasePath("async-grouped")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try CatalogStore(path: path)
        let shelves = 16
        var catalog = Catalog(name: "shelf", sections: (0..<shelves).map { s in
            Section(id: "s\(s)", kind: .bookshelf, capacity: s == 0 ? 20 : 1_000, items: (0..<20).map { i in
                Item(id: "b\(s)-\(i)", content: .book(Book(title: "Book \(s)-\(i)", cover: "c")))
            })
        })
        catalog.revision = try store.replace(catalog).revision
        let first = catalog
        let log = Log()

        // Two threads write in the blocking way meanwhile.
        let blocking = DispatchGroup()
        for t in 0..<2 {
            blocking.enter()
            Thread {
                defer { blocking.leave() }
                for n in 0..<50 {
                    do {
                        log.landed(try store.move(item: "b\(t + 1)-\(n % 20)", toSection: "s\(t + 3)", in: "shelf").revision)
                    } catch {
                        log.failed("blocking \(t): \(error)")
                    }
                }
            }.start()
        }
        let tasks = 64, writesPerTask = 10
        await withTaskGroup(of: Void.self) { group in
            for t in 0..<tasks {
                group.addTask {
                    for n in 0..<writesPerTask {
                        // Shelf s0 is full: every third write of a task tries to put a book there
                        // and is refused alone.
                        let target = n % 3 == 2 ? "s0" : "s\(5 + (t + n) % (shelves - 5))"
                        do {
                            log.landed(try await store.move(item: "b\(1 + t % 4)-\((t / 4 + n) % 20)", toSection: target, in: "shelf").revision)
                        } catch StoreError.rejected {
                            log.refused()
                        } catch {
                            log.failed("task \(t): \(error)")
                        }
                    }
                }
            }
        }
        // Waited for without blocking one of the few threads every test's tasks share.
        await withCheckedContinuation { done in blocking.notify(queue: .global()) { done.resume() } }
        let (revisions, refused, failures) = log.snapshot()
        #expect(failures.isEmpty, "\(failures)")
        #expect(refused == tasks * 3)
        #expect(revisions.sorted() == Array(first.revision + 1...first.revision + revisions.count))
        let last = try store.catalog(named: "shelf")
        #expect(last.revision == first.revision + revisions.count)
        #expect(last.itemCount == first.itemCount)
        #expect(try store.changes(in: "shelf", since: first.revision).violations(from: first, to: last) == [])
        try store.checkIntegrity()
        #expect(store.combiner.largestGroup >= 8, "groups stayed as small as a thread pool: \(store.combiner.largestGroup)")
    }
}
