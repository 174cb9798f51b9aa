import CatalogDiff
import CatalogModel
import CatalogStore
import Foundation
import GRDB

/// `catalog-bench live`: how fast writes reach observers (docs/Live-updates.md), against what a GRDB user
/// writes today — a `ValueObservation` that fetches the catalogue's rows again on every commit
/// and diffs them with the previous fetch — measured in the same run, on files of their own.
///
/// - Write → observer: `observers` observers of a `books`-book catalogue, `moves` moves as fast
///   as the store takes them; the time from each write call to each observer's update of it
///   (the write's own commit included), p50 and p99 over every update of every observer.
/// - CPU a write: process CPU time per move at `largeBooks` books with one observer in step
///   (the writer waits for each update before the next move).
/// - Per-stage data: `Changeset.stagedCatalogs` of a two-stage changeset at `largeBooks` items,
///   against the diff that made the changeset.
/// - Another connection's write: seen through the poll, against the same observer of the
///   writing store.
package struct LiveBenchmark: Sendable {
    package var books: Int
    package var observers: Int
    package var moves: Int
    package var largeBooks: Int
    package var runs: Int

    package init(books: Int = 1_000, observers: Int = 10, moves: Int = 2_000, largeBooks: Int = 100_000, runs: Int = 5) {
        self.books = books
        self.observers = observers
        self.moves = moves
        self.largeBooks = largeBooks
        self.runs = runs
    }

    package func run(log: (String) -> Void = { _ in }) throws -> [BenchmarkResult] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-bench-live-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var results: [BenchmarkResult] = []

        log("live: \(observers) observers of \(books.abbreviated) books, \(moves.abbreviated) moves")
        let ours = try Self.blocking { try await Self.ourLatencies(books: books, observers: observers, moves: moves, folder: folder, name: "latency") }
        let theirs = try Self.blocking { try await Self.observationLatencies(books: books, observers: observers, moves: moves, folder: folder) }
        for (label, p) in [("p50", 0.5), ("p99", 0.99)] {
            results.append(BenchmarkResult(suite: "live", name: "write → \(observers) observers \(label), \(books.abbreviated) books",
                                           medianMS: Clock.percentile(ours, p), baseline: "ValueObservation refetch + diff \(label)",
                                           baselineMedianMS: Clock.percentile(theirs, p), items: 1))
        }

        log("live: CPU a write with an observer at \(largeBooks.abbreviated) books")
        let cpu = try Self.blocking { try await Self.ourCPUPerWrite(books: largeBooks, writes: 30, folder: folder) }
        let cpuBaseline = try Self.blocking { try await Self.observationCPUPerWrite(books: largeBooks, writes: 30, folder: folder) }
        results.append(BenchmarkResult(suite: "live", name: "CPU a write with an observer, \(largeBooks.abbreviated) books", medianMS: cpu,
                                       baseline: "ValueObservation refetch + diff", baselineMedianMS: cpuBaseline, items: 1))

        log("live: per-stage data at \(largeBooks.abbreviated) items")
        let (a, b) = Self.twoStagePair(items: largeBooks)
        let changeset = try Changeset(from: a, to: b)
        precondition(changeset.stages.count == 2, "the pair makes a changeset of two stages")
        let staged = Clock.compare(runs: runs, case: { () }, { _ in _ = changeset.stagedCatalogs(from: a, to: b) },
                                   baseline: { () }, { _ in _ = try? Changeset(from: a, to: b) })
        results.append(BenchmarkResult(suite: "live", name: "per-stage data, \(largeBooks.abbreviated) items (2 stages)",
                                       medianMS: staged.median, baseline: "the diff itself", baselineMedianMS: staged.baselineMedian,
                                       items: largeBooks))

        log("live: another connection's writes")
        let other = try Self.blocking { try await Self.ourLatencies(books: books, observers: 1, moves: 200, folder: folder, name: "other", otherConnection: true) }
        let same = try Self.blocking { try await Self.ourLatencies(books: books, observers: 1, moves: 200, folder: folder, name: "same") }
        results.append(BenchmarkResult(suite: "live", name: "another connection's write → observer p99", medianMS: Clock.percentile(other, 0.99),
                                       baseline: "the same store's write → observer p99", baselineMedianMS: Clock.percentile(same, 0.99), items: 1))

        log("live: an observed store with nothing changing")
        let idle = try Self.blocking { try await Self.idleGaps(window: .seconds(12), folder: folder) }
        results.append(BenchmarkResult(suite: "live", name: "idle observed store: time between its looks at the file", medianMS: idle.looks,
                                       baseline: "the poll without file events (backed off)", baselineMedianMS: idle.fallbackLooks, items: 1))
        if let wakeUps = idle.wakeUps, let unobserved = idle.unobservedWakeUps {
            results.append(BenchmarkResult(suite: "live", name: "idle observed store: time between the process's wake-ups", medianMS: wakeUps,
                                           baseline: "the same process observing nothing", baselineMedianMS: unobserved, items: 1))
        }
        return results
    }

    /// Milliseconds between the looks an observed store with nothing changing takes at its file,
    /// with file events and with the poll that stands in where there are none; and between the
    /// process's wake-ups (every thread's context switches, Linux), observing and not.
    static func idleGaps(window: Duration, folder: URL) async throws
        -> (looks: Double, fallbackLooks: Double, wakeUps: Double?, unobservedWakeUps: Double?) {
        let path = folder.appendingPathComponent("idle.sqlite").path
        let store = try CatalogStore(path: path)
        try store.replace(shelves(books: 1_000))
        let windowMS = Double(window.components.seconds) * 1000
        func gap(_ count: Int) -> Double { windowMS / Double(max(count, 1)) }
        func gap(_ before: Int?, _ after: Int?) -> Double? {
            guard let before, let after else { return nil }
            return gap(after - before)
        }

        let unobservedStart = contextSwitches()
        try await Task.sleep(for: window)
        let unobserved = gap(unobservedStart, contextSwitches())

        // As an app observes: the updates of one catalogue, consumed as they come.
        let watching = Task { for try await _ in store.updates(of: "books", from: 1) {} }
        defer { watching.cancel() }
        while store.notifier.looks == 0 { try await Task.sleep(for: .milliseconds(1)) }
        try await Task.sleep(for: .milliseconds(100))   // the grace looks after the store's own writes
        let (looksBefore, switchesBefore) = (store.notifier.looks, contextSwitches())
        try await Task.sleep(for: window)
        let looks = gap(store.notifier.looks - looksBefore)
        let observed = gap(switchesBefore, contextSwitches())
        watching.cancel()

        let fallback = ChangeNotifier(path: path, fileEvents: false)
        fallback.retain()
        defer { fallback.release() }
        try await Task.sleep(for: .seconds(3))   // backed off to its longest interval
        let fallbackBefore = fallback.looks
        try await Task.sleep(for: window)
        return (looks, gap(fallback.looks - fallbackBefore), observed, unobserved)
    }

    /// Voluntary and involuntary context switches of every thread of this process (nil off Linux).
    static func contextSwitches() -> Int? {
        #if os(Linux)
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return nil }
        var total = 0
        for thread in threads {
            guard let status = try? String(contentsOfFile: "/proc/self/task/\(thread)/status", encoding: .utf8) else { continue }
            for line in status.split(separator: "\n") where line.hasPrefix("voluntary_ctxt_switches") || line.hasPrefix("nonvoluntary_ctxt_switches") {
                total += Int(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
            }
        }
        return total
        #else
        return nil
        #endif
    }

    // MARK: CatalogKit

    static func shelves(books: Int) -> Catalog {
        var catalog = Catalog.generated(name: "books", items: books, sections: max(1, books / 100), kind: .bookshelf, seed: 5)
        for s in catalog.sections.indices { catalog.sections[s].capacity = 200 }
        return catalog
    }

    /// Milliseconds from each write call to each observer's update of that revision.
    static func ourLatencies(books: Int, observers: Int, moves: Int, folder: URL, name: String,
                             otherConnection: Bool = false) async throws -> [Double] {
        let path = folder.appendingPathComponent("\(name).sqlite").path
        let store = try CatalogStore(path: path)
        let catalog = shelves(books: books)
        let start = try store.replace(catalog).revision
        let writer = otherConnection ? try CatalogStore(path: path) : store
        let book = catalog.sections[0].items[0].id, shelf = catalog.sections[0].id
        let returned = Timestamps(count: start + moves + 1)
        let last = start + moves
        return try await withThrowingTaskGroup(of: [(revision: Int, at: Double)].self) { group in
            let ready = Countdown(observers)
            for _ in 0..<observers {
                group.addTask {
                    var deliveries: [(revision: Int, at: Double)] = []
                    var iterator = store.updates(of: "books", from: start).makeAsyncIterator()
                    ready.arrive()
                    while let update = try await iterator.next() {
                        deliveries.append((update.revision, Clock.nowMS()))
                        if update.revision >= last { break }
                    }
                    return deliveries
                }
            }
            await ready.wait()
            try await Task.sleep(for: .milliseconds(50))
            for i in 0..<moves {
                let called = Clock.nowMS()
                try await writer.move(item: book, toSection: shelf, index: i % 2 == 0 ? 5 : 0, in: "books")
                returned.set(start + i + 1, called)
            }
            var all: [Double] = []
            for try await part in group { all += part.map { $0.at - returned.wait($0.revision) } }
            return all
        }
    }

    /// Process CPU milliseconds a move costs with one observer in step.
    static func ourCPUPerWrite(books: Int, writes: Int, folder: URL) async throws -> Double {
        let store = try CatalogStore(path: folder.appendingPathComponent("cpu.sqlite").path)
        let catalog = shelves(books: books)
        let start = try store.replace(catalog).revision
        _ = try store.catalog(named: "books")  // the snapshot the store keeps from write to write
        var iterator = store.updates(of: "books", from: start).makeAsyncIterator()
        let book = catalog.sections[0].items[0].id, shelf = catalog.sections[0].id
        try await store.move(item: book, toSection: shelf, index: 5, in: "books")
        _ = try await iterator.next()  // warm
        let before = Clock.cpuMS()
        for i in 0..<writes {
            try await store.move(item: book, toSection: shelf, index: i % 2 == 0 ? 0 : 5, in: "books")
            _ = try await iterator.next()
        }
        return (Clock.cpuMS() - before) / Double(writes)
    }

    /// Two catalogues whose changeset has two stages: a section inserted and filled from another.
    static func twoStagePair(items: Int) -> (Catalog, Catalog) {
        let a = Catalog.generated(name: "pair", items: items, sections: 100, kind: .videos, seed: 9)
        var b = a
        let moved = Array(b.sections[0].items.suffix(10))
        b.sections[0].items.removeLast(10)
        b.sections.insert(Section(id: "inserted", kind: .videos, items: moved), at: 50)
        return (a, b)
    }

    // MARK: The baseline: GRDB's ValueObservation, refetch and diff

    /// A GRDB app's table of books, written and observed through one pool.
    static func baselinePool(books: Int, folder: URL, name: String) throws -> DatabasePool {
        let pool = try DatabasePool(path: folder.appendingPathComponent("\(name).sqlite").path)
        try pool.write { db in
            try db.execute(sql: "CREATE TABLE book (id TEXT PRIMARY KEY, shelf INTEGER NOT NULL, position INTEGER NOT NULL)")
            try db.execute(sql: "CREATE INDEX book_order ON book (shelf, position)")
            // Which write the rows reflect, so that an observer knows what it is seeing.
            try db.execute(sql: "CREATE TABLE meta (writes INTEGER NOT NULL); INSERT INTO meta VALUES (0)")
            let insert = try db.makeStatement(sql: "INSERT INTO book VALUES (?, ?, ?)")
            for (s, section) in shelves(books: books).sections.enumerated() {
                for (i, item) in section.items.enumerated() { try insert.execute(arguments: [item.id, s, i * 10]) }
            }
        }
        return pool
    }

    /// The observation a GRDB user writes: every row again, as a snapshot shape (with the number
    /// of writes it reflects).
    static func observation() -> ValueObservation<ValueReducers.Fetch<(writes: Int, shape: SnapshotShape<Int, String>)>> {
        ValueObservation.tracking { db in
            let writes = try Int.fetchOne(db, sql: "SELECT writes FROM meta") ?? 0
            var sections: [Int] = []
            var items: [[String]] = []
            let rows = try Row.fetchCursor(db, sql: "SELECT shelf, id FROM book ORDER BY shelf, position")
            while let row = try rows.next() {
                let shelf: Int = row[0]
                if sections.last != shelf {
                    sections.append(shelf)
                    items.append([])
                }
                items[items.count - 1].append(row[1])
            }
            return (writes, SnapshotShape(sections: sections, items: items))
        }
    }

    /// One move in the baseline's table, counted.
    static func baselineMove(_ i: Int, in db: Database) throws {
        try db.execute(sql: "UPDATE book SET position = ? WHERE shelf = 0 AND position IN (0, 55)", arguments: [i % 2 == 0 ? 55 : 0])
        try db.execute(sql: "UPDATE meta SET writes = writes + 1")
    }

    static func observationLatencies(books: Int, observers: Int, moves: Int, folder: URL) async throws -> [Double] {
        let pool = try baselinePool(books: books, folder: folder, name: "observation")
        let returned = Timestamps(count: moves + 1)
        return try await withThrowingTaskGroup(of: [(revision: Int, at: Double)].self) { group in
            let ready = Countdown(observers)
            for _ in 0..<observers {
                group.addTask {
                    var deliveries: [(revision: Int, at: Double)] = []
                    var previous: SnapshotShape<Int, String>?
                    for try await (writes, shape) in observation().values(in: pool) {
                        if let previous { _ = try StagedDiff.changeset(from: previous, to: shape) } else { ready.arrive() }
                        previous = shape
                        if writes > 0 { deliveries.append((writes, Clock.nowMS())) }
                        if writes >= moves { break }
                    }
                    return deliveries
                }
            }
            await ready.wait()
            try await Task.sleep(for: .milliseconds(50))
            for i in 0..<moves {
                let called = Clock.nowMS()
                try await pool.write { db in try baselineMove(i, in: db) }
                returned.set(i + 1, called)
            }
            var all: [Double] = []
            for try await part in group { all += part.map { $0.at - returned.wait($0.revision) } }
            return all
        }
    }

    static func observationCPUPerWrite(books: Int, writes: Int, folder: URL) async throws -> Double {
        let pool = try baselinePool(books: books, folder: folder, name: "observation-cpu")
        var iterator = observation().values(in: pool).makeAsyncIterator()
        var previous = try await iterator.next()!.shape
        let before = Clock.cpuMS()
        for i in 0..<writes {
            try await pool.write { db in try baselineMove(i, in: db) }
            let shape = try await iterator.next()!.shape
            _ = try StagedDiff.changeset(from: previous, to: shape)
            previous = shape
        }
        return (Clock.cpuMS() - before) / Double(writes)
    }

    // MARK: Helpers

    /// Runs async work from the synchronous benchmark driver.
    static func blocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            do { box.result = .success(try await work()) } catch { box.result = .failure(error) }
            done.signal()
        }
        done.wait()
        return try box.result!.get()
    }

    private final class ResultBox<T>: @unchecked Sendable {
        var result: Result<T, any Error>?
    }

    /// When each revision's write was called (read once the writes are done).
    final class Timestamps: @unchecked Sendable {
        private let condition = NSCondition()
        private var times: [Double?]

        init(count: Int) { times = Array(repeating: nil, count: count) }

        func set(_ index: Int, _ time: Double) {
            condition.withLock {
                times[index] = time
                condition.broadcast()
            }
        }

        func wait(_ index: Int) -> Double {
            condition.withLock {
                while times[index] == nil { condition.wait() }
                return times[index]!
            }
        }
    }

    /// Lets the writer start once every observer has begun.
    final class Countdown: @unchecked Sendable {
        private let lock = NSLock()
        private var remaining: Int
        private var waiter: CheckedContinuation<Void, Never>?

        init(_ count: Int) { remaining = count }

        func arrive() {
            let resume: CheckedContinuation<Void, Never>? = lock.withLock {
                remaining -= 1
                guard remaining == 0 else { return nil }
                defer { waiter = nil }
                return waiter
            }
            resume?.resume()
        }

        func wait() async {
            await withCheckedContinuation { continuation in
                let now = lock.withLock {
                    if remaining <= 0 { return true }
                    waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        }
    }
}

extension Clock {
    /// Milliseconds on a monotonic clock.
    static func nowMS() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e6 }

    /// Milliseconds of CPU time the process has used, on all its threads.
    static func cpuMS() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1e6
    }
}
