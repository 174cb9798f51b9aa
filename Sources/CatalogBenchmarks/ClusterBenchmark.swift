import CatalogDiff
import CatalogModel
import CatalogPostgres
import CatalogStore
import Foundation
import PostgresNIO

/// The load test of docs/PostgreSQL.md: `catalog serve` instances (separate processes) on one
/// database, driven by keep-alive clients and followed by event-stream subscribers in this
/// process, on one hot catalogue of shelves of capacity 4.
///
/// Four runs of the same load — random moves (a tenth of them batches of two to four moves),
/// reject, displace and swap: one instance on SQLite, one on PostgreSQL, two on PostgreSQL, and
/// two on PostgreSQL again with the subscribers split over both instances and `kill -9` of the
/// first half-way, its clients and subscribers then going to the second. Between the last two,
/// the same clients send `GET /health` to the two instances: the requests per second HTTP alone
/// reaches on this machine, a ceiling for the write runs. After the last,
/// `catalog check` must pass, every acknowledged revision must be unique and stored, and every
/// subscriber must have seen every revision in order with changesets the batch-update simulator
/// accepts, ending at the stored catalogue. Also counted: PostgreSQL statements per single move
/// (pg_stat_statements), and the time from a write acknowledged by one instance to its event on
/// the other's stream.
package struct ClusterBenchmark: Sendable {
    package var postgresURL: String
    package var catalogExecutable: String
    package var seconds: Int
    package var baselineSeconds: Int
    package var connections: Int
    package var subscribers: Int
    package var shelves = 2_000
    package var booksPerShelf = 2

    package init(postgresURL: String, catalogExecutable: String, seconds: Int = 30, baselineSeconds: Int = 10,
                connections: Int = 64, subscribers: Int = 100) {
        self.postgresURL = postgresURL
        self.catalogExecutable = catalogExecutable
        self.seconds = seconds
        self.baselineSeconds = baselineSeconds
        self.connections = connections
        self.subscribers = subscribers
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// What one run measured.
    package struct RunResult: Sendable {
        package var name: String
        package var writes: Int
        package var refused: Int
        package var failed: Int
        package var perSecond: Double
        package var p50: Double
        package var p99: Double
        /// How the run divided the machine's cores; nil for the run with `kill -9` (the killed
        /// instance's time goes with it) and where `/proc` is missing.
        package var cores: CoreUse?
    }

    package struct Report: Sendable {
        package var runs: [RunResult] = []
        package var statementsPerMove: Double?
        /// Acknowledged by one instance → on the other's event stream, in milliseconds: with
        /// one client writing every 20 ms, and during the two-instance run.
        package var propagation: Percentiles?
        package var propagationUnderLoad: Percentiles?
        package var finalRevision = 0
        package var acknowledged = 0
        package var subscribersChecked = 0
        package var subscriberEvents = 0
        package var reconnects = 0
        /// From a subscriber's reconnection (its instance killed) to its first event from the
        /// other instance, in milliseconds.
        package var resumption: Percentiles?
        package var problems: [String] = []
    }

    package struct Percentiles: Sendable {
        package var p50: Double
        package var p99: Double
        package var samples: Int

        /// The percentiles of `values`; nil when there are none.
        init?(of values: [Double]) {
            guard !values.isEmpty else { return nil }
            (p50, p99, samples) = (Clock.percentile(values, 0.5), Clock.percentile(values, 0.99), values.count)
        }
    }

    static let catalogName = "hot"

    /// How long each acknowledged revision took to reach the subscriber, from `arrivals`.
    static func delays(_ acknowledged: [(Int, UInt64)], arrivals: [Int: UInt64]) -> Percentiles? {
        var delays: [Double] = []
        for (revision, time) in acknowledged {
            guard let arrival = arrivals[revision] else { continue }
            delays.append(arrival > time ? Double(arrival - time) / 1e6 : 0)
        }
        return Percentiles(of: delays)
    }

    var catalog: Catalog {
        var sections: [Section] = []
        for s in 0..<shelves {
            let books = (0..<booksPerShelf).map { b in
                let n = s * booksPerShelf + b
                return Item(id: "b\(n)", content: .book(Book(title: "Book \(n)", cover: "c\(n)")))
            }
            sections.append(Section(id: "s\(s)", kind: .bookshelf, capacity: 4, items: books))
        }
        return Catalog(name: Self.catalogName, sections: sections)
    }

    package func run(log: @escaping @Sendable (String) -> Void) throws -> Report {
        try LiveBenchmark.blocking { try await self.measure(log: log) }
    }

    private func measure(log: @escaping @Sendable (String) -> Void) async throws -> Report {
        var report = Report()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-cluster-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        // One instance on SQLite.
        let sqlite = folder.appendingPathComponent("cluster.sqlite").path
        try CatalogStore(path: sqlite).replace(catalog)
        do {
            let server = try ServerProcess.start(catalogExecutable, database: sqlite, log: folder.appendingPathComponent("sqlite.log").path)
            defer { server.stop() }
            log("one instance on SQLite: \(baselineSeconds) s")
            report.runs.append(try await load("1 instance, SQLite", ports: [server.port], seconds: baselineSeconds, servers: [server]).result)
        }

        // One instance on PostgreSQL, then the counted single moves.
        let store = try await PostgresCatalogStore.open(url: postgresURL, maximumConnections: 2)
        try await reset(store)
        do {
            let server = try ServerProcess.start(catalogExecutable, database: postgresURL, log: folder.appendingPathComponent("pg1.log").path)
            defer { server.stop() }
            log("one instance on PostgreSQL: \(baselineSeconds) s")
            report.runs.append(try await load("1 instance, PostgreSQL", ports: [server.port], seconds: baselineSeconds, servers: [server]).result)
            report.statementsPerMove = try await statementsPerMove(port: server.port, log: log)
        }

        // Two instances on PostgreSQL with nothing else running: the throughput of one hot
        // catalogue over two instances.
        try await reset(store)
        do {
            let a = try ServerProcess.start(catalogExecutable, database: postgresURL, log: folder.appendingPathComponent("pg2a.log").path)
            let b = try ServerProcess.start(catalogExecutable, database: postgresURL, log: folder.appendingPathComponent("pg2b.log").path)
            defer { a.stop(); b.stop() }
            log("two instances on PostgreSQL: \(baselineSeconds) s")
            report.runs.append(try await load("2 instances, PostgreSQL", ports: [a.port, b.port], seconds: baselineSeconds, servers: [a, b]).result)
            // The same clients and instances on a route that reads nothing: what this machine's
            // cores give HTTP alone, the most any write load here could reach.
            log("the same two instances answering GET /health: \(baselineSeconds) s")
            report.runs.append(try await load("2 instances, GET /health (no database; the ceiling)", ports: [a.port, b.port],
                                              seconds: baselineSeconds, health: true, servers: [a, b]).result)
        }

        // Two instances on PostgreSQL, subscribers on both, the first killed half-way.
        try await reset(store)
        let a = try ServerProcess.start(catalogExecutable, database: postgresURL, log: folder.appendingPathComponent("pgA.log").path)
        let b = try ServerProcess.start(catalogExecutable, database: postgresURL, log: folder.appendingPathComponent("pgB.log").path)
        defer { a.stop(); b.stop() }
        let verdicts = StreamChecker.Verdicts()
        let probe = StreamChecker(ports: [b.port], catalog: Self.catalogName, verdicts: verdicts, recordArrivals: true)
        probe.start()
        log("two instances on PostgreSQL, one client writing through the first every 20 ms, a subscriber of the second: 5 s")
        let quiet = try await load("propagation", ports: [a.port], seconds: 5, clients: 0, probeOn: a.port)
        report.propagation = Self.delays(quiet.probeAcknowledgements, arrivals: probe.summary.arrivals)
        let checkers = (0..<subscribers).map { i in
            StreamChecker(ports: i % 2 == 0 ? [a.port, b.port] : [b.port, a.port], catalog: Self.catalogName, verdicts: verdicts)
        }
        for checker in checkers { checker.start() }
        log("two instances on PostgreSQL, \(subscribers) subscribers, kill -9 of one after \(seconds / 2) s: \(seconds) s")
        let killer = Task {
            try? await Task.sleep(for: .seconds(Double(seconds) / 2))
            a.kill()
            log("killed the first instance")
        }
        let two = try await load("2 instances, PostgreSQL, \(subscribers) subscribers, kill -9 of one", ports: [a.port, b.port], seconds: seconds, probeOn: a.port)
        _ = await killer.value
        report.runs.append(two.result)

        // Every subscriber reaches the last revision, then the checks.
        let final = try await store.revision(of: Self.catalogName)
        let stored = try await store.catalog(named: Self.catalogName)
        let storedShape = SnapshotShape(stored.sections.map { ($0.id, $0.items.map(\.id)) })
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline, !(checkers + [probe]).allSatisfy({ ($0.receivedRevision ?? 0) >= final }) {
            try await Task.sleep(for: .milliseconds(100))
        }
        for checker in checkers + [probe] { checker.stop() }
        // The subscribers only read while the load ran; their events are checked now.
        for checker in checkers + [probe] { checker.check() }
        report.finalRevision = final
        report.acknowledged = two.acknowledged.count
        var resumptions: [Double] = []
        for (i, checker) in checkers.enumerated() {
            let summary = checker.summary
            report.subscriberEvents += summary.events
            report.reconnects += summary.reconnects
            resumptions += summary.resumptions
            report.problems += summary.problems.map { "subscriber \(i): \($0)" }
            if summary.revision != final {
                report.problems.append("subscriber \(i) ended at revision \(summary.revision ?? -1), not \(final)")
            } else if summary.shape != storedShape {
                report.problems.append("subscriber \(i) ended with a shape other than the stored catalogue's")
            } else {
                report.subscribersChecked += 1
            }
        }
        report.resumption = Percentiles(of: resumptions)
        // Acknowledged writes: each revision once, each stored.
        var seen = Set<Int>()
        for revision in two.acknowledged where !seen.insert(revision).inserted {
            report.problems.append("revision \(revision) was acknowledged twice")
        }
        if let highest = seen.max(), highest > final {
            report.problems.append("revision \(highest) was acknowledged but the catalogue is at \(final)")
        }
        let journal = try await store.journalRevisions()
        if final > journal {
            report.problems.append("the journal keeps \(journal) revisions, fewer than the \(final) written: raise it for the check")
        }
        report.propagationUnderLoad = Self.delays(two.probeAcknowledgements, arrivals: probe.summary.arrivals)
        b.stop()
        store.close()
        // `catalog check`: every shelf within capacity, every book once, revisions contiguous,
        // the journal replaying to the stored catalogue.
        let check = try ServerProcess.run(catalogExecutable, ["check", "--db", postgresURL])
        if check.status != 0 { report.problems.append("catalog check failed: \(check.output)") }
        return report
    }

    /// The benchmark catalogue afresh, with a journal that keeps every revision of the run.
    private func reset(_ store: PostgresCatalogStore) async throws {
        if try await store.summaries().contains(where: { $0.name == Self.catalogName }) {
            _ = try await store.delete([(Self.catalogName, nil)])
        }
        try await store.setJournalRevisions(CatalogStore.journalRevisionsRange.upperBound)
        _ = try await store.replace([(catalog, nil)], progress: nil)
    }

    // MARK: Load

    struct LoadOutcome {
        var result: RunResult
        var acknowledged: [Int]
        /// Revisions the probe client wrote through the first instance, with when each was acknowledged.
        var probeAcknowledgements: [(Int, UInt64)]
    }

    /// `clients` (default: `connections`) clients, split over `ports`, each sending moves and batches one after
    /// another for `seconds`; a client whose server is gone goes to the next port. With
    /// `probeOn`, one more client sends a move through that port every 20 ms, its
    /// acknowledgements counted from the second second on.
    /// With `health`, each request is `GET /health` instead of a write, counted as one.
    /// With `servers`, the run's ``CoreUse`` is measured over those instances.
    private func load(_ name: String, ports: [Int], seconds: Int, clients: Int? = nil, probeOn: Int? = nil,
                      health: Bool = false, servers: [ServerProcess]? = nil) async throws -> LoadOutcome {
        let pids = servers?.map(\.process.processIdentifier)
        let coresBefore = pids.flatMap { CoreUse.sample(instances: $0) }
        let end = DispatchTime.now().uptimeNanoseconds + UInt64(seconds) * 1_000_000_000
        let shared = LoadTally()
        let clients = clients ?? connections
        let done = LiveBenchmark.Countdown(clients + (probeOn == nil ? 0 : 1))
        for client in 0..<clients {
            let thread = Thread {
                var random = SplitMix(seed: UInt64(client + 1) &* 0x9E37_79B9)
                var tally = LoadTally.Local()
                var portIndex = client % ports.count
                var http = BlockingHTTP(port: ports[portIndex])
                let method = health ? "GET" : "POST"
                while DispatchTime.now().uptimeNanoseconds < end {
                    let (path, body, moves): (String, String?, Int) = health ? ("/health", nil, 1) : self.randomWrite(&random)
                    let start = DispatchTime.now().uptimeNanoseconds
                    do {
                        let response = try http.request(method, path, body: body)
                        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
                        tally.record(response, milliseconds: elapsed, moves: moves)
                    } catch {
                        // Its server is gone: to the next.
                        tally.failed += 1
                        portIndex = (portIndex + 1) % ports.count
                        http = BlockingHTTP(port: ports[portIndex])
                        Thread.sleep(forTimeInterval: 0.01)
                    }
                }
                shared.merge(tally)
                done.arrive()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        if let probeOn {
            let thread = Thread {
                var random = SplitMix(seed: 77)
                let http = BlockingHTTP(port: probeOn)
                var acknowledged: [(Int, UInt64)] = []
                // The first second is not counted: a fresh instance's first updates (its first
                // read of the catalogue, its statements prepared) are not what the figure is of.
                let counted = DispatchTime.now().uptimeNanoseconds + 1_000_000_000
                while DispatchTime.now().uptimeNanoseconds < end {
                    let (path, body, _) = self.randomMove(&random)
                    if let response = try? http.request("POST", path, body: body), response.status == 200,
                       let revision = LoadTally.number("revision", in: response.body),
                       LoadTally.number("fromRevision", in: response.body) == revision - 1 {
                        let now = DispatchTime.now().uptimeNanoseconds
                        if now >= counted { acknowledged.append((revision, now)) }
                    } else if (try? http.connect()) == nil {
                        break   // the instance is gone
                    }
                    Thread.sleep(forTimeInterval: 0.02)
                }
                shared.probe(acknowledged)
                done.arrive()
            }
            thread.start()
        }
        await done.wait()
        var outcome = shared.outcome(name: name, seconds: Double(seconds))
        if let pids, let coresBefore, let coresAfter = CoreUse.sample(instances: pids) {
            outcome.result.cores = CoreUse(from: coresBefore, to: coresAfter)
        }
        return outcome
    }

    /// A move (nine in ten) or a batch of two to four moves: path, body, and how many moves.
    func randomWrite(_ random: inout SplitMix) -> (String, String, Int) {
        if random.next(10) == 0 {
            let count = 2 + random.next(3)
            let operations = (0..<count).map { _ in
                "{\"op\":\"moveItem\",\"id\":\"b\(random.next(shelves * booksPerShelf))\",\"toSection\":\"s\(random.next(shelves))\",\"index\":0}"
            }
            return ("/catalogs/\(Self.catalogName)/batches", "{\"operations\":[\(operations.joined(separator: ","))]}", count)
        }
        return randomMove(&random)
    }

    func randomMove(_ random: inout SplitMix) -> (String, String, Int) {
        let policy = ["reject", "reject", "reject", "displace", "swap"][random.next(5)]
        let body = "{\"item\":\"b\(random.next(shelves * booksPerShelf))\",\"toSection\":\"s\(random.next(shelves))\",\"index\":\(random.next(3)),\"policy\":\"\(policy)\"}"
        return ("/catalogs/\(Self.catalogName)/moves", body, 1)
    }

    // MARK: Round trips

    /// Statements PostgreSQL ran per single move sent alone (BEGIN and COMMIT included), from
    /// pg_stat_statements; nil when the server does not load it.
    private func statementsPerMove(port: Int, log: (String) -> Void) async throws -> Double? {
        let location = try PostgresLocation(url: postgresURL)
        let connection = try await PostgresConnection.connect(configuration: try location.connectionConfiguration(), id: 1,
                                                              logger: Logger(label: "bench"))
        defer { Task { try? await connection.close() } }
        func calls() async throws -> Int64? {
            var total: Int64?
            let rows = try await connection.query("""
                SELECT sum(calls)::bigint FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
                  AND query NOT LIKE '%pg_stat_statements%' AND query NOT LIKE 'SELECT name, revision FROM catalog%'
                """, logger: Logger(label: "bench"))
            for try await value in rows.decode(Int64?.self) { total = value }
            return total
        }
        do {
            try await connection.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements", logger: Logger(label: "bench"))
            _ = try await calls()
        } catch {
            log("pg_stat_statements is not loaded: no statement count (Scripts/postgres.sh loads it)")
            return nil
        }
        let http = BlockingHTTP(port: port)
        var random = SplitMix(seed: 5)
        let moves = 500
        // Wait for the instance's own readings to settle, then count only the moves' statements.
        let before = try await calls() ?? 0
        var written = 0
        for _ in 0..<moves {
            let item = random.next(shelves * booksPerShelf)
            let response = try http.request("POST", "/catalogs/\(Self.catalogName)/moves",
                                            body: "{\"item\":\"b\(item)\",\"toSection\":\"s\(random.next(shelves))\",\"policy\":\"swap\",\"index\":0}")
            if response.status == 200 { written += 1 }
        }
        let after = try await calls() ?? 0
        guard written > 0 else { return nil }
        return Double(after - before) / Double(written)
    }
}

/// Counts of a load run, merged from every client thread.
final class LoadTally: @unchecked Sendable {
    struct Local {
        var latencies: [Double] = []
        var acknowledged: [Int] = []
        var moves = 0
        var refused = 0
        var failed = 0

        mutating func record(_ response: BlockingHTTP.Response, milliseconds: Double, moves: Int) {
            switch response.status {
            case 200:
                latencies.append(milliseconds)
                self.moves += moves
                // A write that changed something (one that changed nothing keeps the revision).
                if let revision = LoadTally.number("revision", in: response.body),
                   LoadTally.number("fromRevision", in: response.body) == revision - 1 {
                    acknowledged.append(revision)
                }
            case 400..<500:
                latencies.append(milliseconds)
                refused += 1
            default:
                failed += 1
            }
        }
    }

    private let lock = NSLock()
    private var all = Local()
    private var probeAcknowledgements: [(Int, UInt64)] = []

    func merge(_ local: Local) {
        lock.withLock {
            all.latencies += local.latencies
            all.acknowledged += local.acknowledged
            all.moves += local.moves
            all.refused += local.refused
            all.failed += local.failed
        }
    }

    func probe(_ acknowledged: [(Int, UInt64)]) {
        lock.withLock {
            probeAcknowledgements = acknowledged
            all.acknowledged += acknowledged.map(\.0)
        }
    }

    func outcome(name: String, seconds: Double) -> ClusterBenchmark.LoadOutcome {
        lock.withLock {
            let latencies = ClusterBenchmark.Percentiles(of: all.latencies)
            let result = ClusterBenchmark.RunResult(name: name, writes: all.acknowledged.count, refused: all.refused, failed: all.failed,
                                                    perSecond: Double(all.moves) / seconds, p50: latencies?.p50 ?? 0, p99: latencies?.p99 ?? 0)
            return ClusterBenchmark.LoadOutcome(result: result, acknowledged: all.acknowledged, probeAcknowledgements: probeAcknowledgements)
        }
    }

    /// The first `"key":N` of a write's answer.
    static func number(_ name: String, in body: [UInt8]) -> Int? {
        let key = Array("\"\(name)\":".utf8)
        guard body.count > key.count else { return nil }
        for start in 0...(body.count - key.count) where body[start] == key[0] && Array(body[start..<(start + key.count)]) == key {
            var value = 0, i = start + key.count, digits = 0
            while i < body.count, body[i] >= 48, body[i] <= 57 {
                value = value * 10 + Int(body[i] - 48)
                i += 1
                digits += 1
            }
            return digits > 0 ? value : nil
        }
        return nil
    }
}

/// A small, fast, seeded generator, so each client's writes are the same from run to run.
struct SplitMix {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Int(z % UInt64(bound))
    }
}
