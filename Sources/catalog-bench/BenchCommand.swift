import ArgumentParser
import CatalogBenchmarks
import CatalogCLI
import CatalogStore
import Foundation

extension InstructionCase: ExpressibleByArgument {}

/// `catalog-bench`: CatalogKit's benchmarks, each case against a baseline measured in the same
/// run. A tool of its own, so that the `catalog` binary links no benchmark or test code.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog-bench",
        abstract: "Run CatalogKit's benchmarks, each against a baseline measured in the same run (use a release build).",
        discussion: """
            Suites: import, diff, layout, writes, http, live, follow (all of them: all), and cluster, the PostgreSQL load test             (needs --postgres; Scripts/cluster-load.sh starts a server for it). Example: swift run -c release catalog-bench writes
            """
    )

    enum Suite: String, ExpressibleByArgument, CaseIterable {
        case all, `import`, diff, layout, writes, http, live, cluster, follow, views
    }

    @Argument(help: "Which suite: all, import, diff, layout, writes, http, live, cluster, follow or views.")
    var suite: Suite = .all

    @Option(help: "Items in the benchmark catalogue.")
    var items: Int = 100_000

    @Option(parsing: .upToNextOption, help: "Snapshot sizes for the diff suite (e.g. --diff-sizes 5000 100000).")
    var diffSizes: [Int] = [5_000, 100_000, 1_000_000]

    @Option(parsing: .upToNextOption, help: "Video cards (in 100 sections) for the views suite (e.g. --view-sizes 10000 100000).")
    var viewSizes: [Int] = [10_000, 100_000, 1_000_000]

    @Option(parsing: .upToNextOption, help: "Catalogue sizes for the diff suite's catalogue-level rows, the call users make (e.g. --catalog-diff-sizes 10000).")
    var catalogDiffSizes: [Int] = [10_000, 100_000, 1_000_000]

    @Option(help: "Rect queries and hit tests per layout (the layout suite).")
    var queries: Int = 10_000

    @Option(help: "Books in the writes suite's catalogue (on books/50 shelves of capacity 100).")
    var books: Int = 1_000_000

    @Option(help: "Single moves timed in the writes suite.")
    var moves: Int = 2_000

    @Option(help: "Event-stream subscribers in the live suite (default 1000), and in the cluster suite (default 100).")
    var subscribers: Int = 1_000

    @Option(help: "Seconds of moves (100 a second) for each event-stream case of the live suite.")
    var fanoutSeconds: Int = 30

    @Option(help: "The follow suite: moves at 100 a second for the write → follower latency.")
    var followWrites = 1_000

    @Option(help: "The follow suite: revisions a stopped follower falls behind before it catches up.")
    var followBehind = 10_000

    @Option(help: "The follow suite: moves queued on the device while its client is stopped.")
    var followQueued = 1_000

    @Option(help: "The follow suite: catalogues a new device follows on one stream.")
    var followCatalogues = 200

    @Option(help: "Concurrent keep-alive connections in the http suite.")
    var connections: Int = 64

    enum LoadGeneratorChoice: String, ExpressibleByArgument, CaseIterable {
        case auto, wrk, `internal`
    }

    @Option(help: "Who sends the http suite's requests: wrk (a separate process; Debian: apt-get install wrk), internal (a client in this process, sharing its cores) or auto (wrk when installed).")
    var loadGenerator: LoadGeneratorChoice = .auto

    @Option(help: "Seconds of load for each http case with wrk.")
    var seconds: Int = 5

    @Option(help: "A PostgreSQL database (postgres://…) for the cluster suite (its catalogue `hot` is replaced) and for the writes suite's PostgreSQL rows (catalogue `shelves` and tables `bench_bare_*` replaced).")
    var postgres: String?

    @Option(help: "Seconds of the cluster suite's run with subscribers and a kill (its other runs last a third of it).")
    var clusterSeconds: Int = 30

    @Option(help: "Shelves of capacity 4 in the cluster suite's catalogue (two books on each).")
    var clusterShelves: Int = 2_000

    @Option(help: "Timed runs per case; the median is reported. Default: 7, and 3 for the http suite (whose runs last --seconds each, and which also reports the worst p99).")
    var runs: Int?

    @Flag(help: "Print JSON: [{suite, case, median_ms, baseline, baseline_median_ms, ratio}].")
    var json = false

    @Option(help: ArgumentHelp("Run one case once for Scripts/instruction-counts.sh (under callgrind) instead of a suite: "
                               + InstructionCase.allCases.map(\.rawValue).joined(separator: ", ") + ".", valueName: "case"))
    var instructions: InstructionCase?

    func validate() throws {
        guard items > 0 else { throw ValidationError("--items must be ≥ 1") }
        guard (runs ?? 1) > 0 else { throw ValidationError("--runs must be ≥ 1") }
        guard queries > 0 else { throw ValidationError("--queries must be ≥ 1") }
        guard books >= 100, moves > 0 else { throw ValidationError("--books must be ≥ 100 and --moves ≥ 1") }
        guard seconds > 0, connections > 0 else { throw ValidationError("--seconds and --connections must be ≥ 1") }
        guard subscribers > 0, fanoutSeconds > 0 else { throw ValidationError("--subscribers and --fanout-seconds must be ≥ 1") }
    }

    func run() throws {
        if let instructions {
            try instructions.run()
            return
        }
        if suite == .cluster {
            try runCluster()
            return
        }
        #if DEBUG
        if !json {
            print("note: this is a debug build; measure with `swift run -c release catalog-bench`.")
        }
        #endif
        let log: @Sendable (String) -> Void = { message in
            FileHandle.standardError.write(Data("· \(message)\n".utf8))
        }
        log("SQLite \(CatalogStore.sqliteVersion), memory statistics \(CatalogStore.sqliteKeepsMemoryStatistics ? "on" : "off")")
        var results: [BenchmarkResult] = []
        let runs = self.runs ?? 7
        if suite == .all || suite == .import {
            results += try ImportBenchmark(items: items, runs: runs).run(log: log)
        }
        if suite == .all || suite == .diff {
            results += try DiffBenchmark(sizes: diffSizes, catalogSizes: catalogDiffSizes, runs: runs).run(log: log)
        }
        if suite == .all || suite == .layout {
            results += try LayoutBenchmark(items: items, runs: runs, queries: queries,
                                           bruteForceQueries: min(queries, 1_000)).run(log: log)
        }
        if suite == .all || suite == .writes {
            let writes = WriteBenchmark(books: books, shelves: max(2, books / 50), moves: moves,
                                        batches: max(1, runs / 2), batchSize: min(1_000, books / 10))
            results += try writes.run(log: log)
            if let postgres { results += try PostgresWriteBenchmark(url: postgres, sizes: writes).run(log: log) }
        }
        if suite == .all || suite == .http {
            let perConnection = max(10, queries / 50)
            let generator: HTTPBenchmark.LoadGenerator
            switch loadGenerator {
            case .auto: generator = .best(seconds: seconds, requestsPerConnection: perConnection)
            case .`internal`: generator = .inProcess(requestsPerConnection: perConnection)
            case .wrk:
                guard let wrk = HTTPBenchmark.LoadGenerator.installedWrk(seconds: seconds) else {
                    throw CLIError("--load-generator wrk: wrk is not on PATH (Debian: apt-get install wrk)")
                }
                generator = wrk
            }
            results += try HTTPBenchmark(connections: connections, loadGenerator: generator, rounds: self.runs ?? 3).run(log: log)
        }
        if suite == .all || suite == .live {
            results += try LiveBenchmark(moves: moves, largeBooks: items, runs: runs).run(log: log)
            results += try FanoutBenchmark(subscribers: subscribers, seconds: Double(fanoutSeconds), runs: self.runs ?? 5).run(log: log)
            // The same subscribers on 10 distinct views of a 100,000-book catalogue (docs/Views.md).
            var views = FanoutBenchmark(subscribers: subscribers, seconds: Double(fanoutSeconds), runs: self.runs ?? 5)
            (views.items, views.views) = (100_000, 10)
            results += try views.run(log: log)
        }
        if suite == .all || suite == .views {
            results += try ViewsBenchmark(sizes: viewSizes, runs: runs).run(log: log)
        }
        if suite == .all || suite == .follow {
            var follow = FollowBenchmark(catalogExecutable: try Self.catalogExecutable())
            (follow.writes, follow.behind, follow.queued, follow.runs) = (followWrites, followBehind, followQueued, self.runs ?? 3)
            follow.manyCatalogues = max(1, followCatalogues)
            results += try follow.run(log: log)
        }
        if json {
            Output.json(.array(results.map(\.jsonValue)))
            return
        }
        print(Output.table(
            ["SUITE", "CASE", "MEDIAN", "ITEMS/s", "BASELINE", "BASELINE MEDIAN", "RATIO", "BYTES/ITEM"],
            results.map { r in
                [r.suite, r.name, Self.duration(r.medianMS),
                 r.items > 1 || r.name.hasSuffix("requests/s") ? String(format: "%.0f", r.itemsPerSecond) : "",
                 r.baseline, Self.duration(r.baselineMedianMS), String(format: r.ratio < 0.1 ? "%.3f×" : "%.2f×", r.ratio),
                 r.bytesPerItem.map { String(format: "%.1f", $0) } ?? ""]
            },
            rightAligned: [2, 3, 5, 6, 7]))
    }

    /// The cluster suite: its own report (runs, round trips, propagation, checks); exit status 1
    /// when a check failed.
    func runCluster() throws {
        guard let postgres else { throw ValidationError("the cluster suite needs --postgres postgres://… (Scripts/cluster-load.sh starts one)") }
        guard clusterSeconds >= 2 else { throw ValidationError("--cluster-seconds must be ≥ 2") }
        guard clusterShelves >= 2 else { throw ValidationError("--cluster-shelves must be ≥ 2") }
        let executable = try Self.catalogExecutable()
        let log: @Sendable (String) -> Void = { FileHandle.standardError.write(Data("· \($0)\n".utf8)) }
        var benchmark = ClusterBenchmark(postgresURL: postgres, catalogExecutable: executable, seconds: clusterSeconds,
                                         baselineSeconds: max(1, clusterSeconds / 3), connections: connections,
                                         subscribers: subscribers == 1_000 ? 100 : subscribers)
        benchmark.shelves = clusterShelves
        let report = try benchmark.run(log: log)
        print(Output.table(["RUN", "MOVES/s", "p50", "p99", "WRITES", "REFUSED (4xx)", "FAILED", "CORES: INSTANCES / POSTGRESQL / CLIENTS / IDLE"],
                           report.runs.map { r in
                               [r.name, String(format: "%.0f", r.perSecond), Self.duration(r.p50), Self.duration(r.p99),
                                String(r.writes), String(r.refused), String(r.failed), r.cores?.summary ?? "–"]
                           }, rightAligned: [1, 2, 3, 4, 5, 6, 7]))
        print("PostgreSQL statements per single move: \(report.statementsPerMove.map { String(format: "%.2f", $0) } ?? "not counted")")
        for (label, figures) in [("one client writing every 20 ms", report.propagation), ("during the two-instance run", report.propagationUnderLoad)] {
            print("write acknowledged by A → event on B, \(label): "
                  + (figures.map { "p50 \(Self.duration($0.p50)), p99 \(Self.duration($0.p99)) over \($0.samples) writes" } ?? "no writes"))
        }
        print("subscribers of the killed instance, reconnection → first event from the other: "
              + (report.resumption.map { "p50 \(Self.duration($0.p50)), p99 \(Self.duration($0.p99)) over \($0.samples) reconnections" } ?? "none"))
        print("final revision \(report.finalRevision); \(report.acknowledged) writes acknowledged; "
              + "\(report.subscribersChecked) subscribers checked (\(report.subscriberEvents) events, \(report.reconnects) reconnections)")
        if report.problems.isEmpty {
            print("checks: passed (catalog check; acknowledged revisions unique and stored; every subscriber saw every revision in order, simulator-valid, ending at the stored catalogue)")
        } else {
            print("checks: FAILED")
            for problem in report.problems { print("  \(problem)") }
            throw ExitCode(1)
        }
    }

    /// The `catalog` binary beside this one, which the suites that need a server start.
    static func catalogExecutable() throws -> String {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("catalog").path
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw CLIError("`catalog` is not beside catalog-bench (\(executable)): build both, e.g. swift build -c release")
        }
        return executable
    }

    /// `12.3 ms`, `0.24 ms` below 10 ms, or `1.52 µs` below a tenth of a millisecond.
    static func duration(_ ms: Double) -> String {
        ms >= 10 ? String(format: "%.1f ms", ms) : ms >= 0.1 ? String(format: "%.2f ms", ms) : String(format: "%.2f µs", ms * 1000)
    }
}
