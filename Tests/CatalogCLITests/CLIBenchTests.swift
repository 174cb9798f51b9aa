import Foundation
import Testing

@Suite("catalog-bench")
struct CLIBenchTests {
    @Test("bench --json prints docs/Command-line.md's rows, each with a baseline measured in the same run")
    func jsonRows() throws {
        let cli = try CLIRunner(tool: CLIRunner.benchExecutable)
        defer { cli.cleanUp() }
        let importRows = try #require(try CLIRunner.json(cli.succeed(["import", "--items", "300", "--runs", "1", "--json"])) as? [[String: Any]])
        let diffRows = try #require(try CLIRunner.json(cli.succeed(["diff", "--diff-sizes", "500", "--catalog-diff-sizes", "400", "--runs", "1", "--json"])) as? [[String: Any]])
        #expect(importRows.count == 6)
        // Catalogues: flat and 100 sections, each plain, made apart and with per-stage data, and
        // the updater's coalescing. Per id kind: flat, 100 sections, both again in fresh scratch
        // memory, floor, stdlib; and spread ids to a shuffled target; Int ids in no particular order.
        #expect(diffRows.count == 27)
        let cases = diffRows.compactMap { $0["case"] as? String }
        #expect(cases.prefix(7) == ["400 items, catalogues, flat: Changeset(from:to:)",
                                    "400 items, catalogues, flat: Changeset(from:to:), the target made apart (no storage shared)",
                                    "400 items, catalogues, flat: Changeset(from:to:) + stagedCatalogs (2 stages)",
                                    "400 items, catalogues, 100 sections: Changeset(from:to:)",
                                    "400 items, catalogues, 100 sections: Changeset(from:to:), the target made apart (no storage shared)",
                                    "400 items, catalogues, 100 sections: Changeset(from:to:) + stagedCatalogs (2 stages)",
                                    "400 items: CollectionUpdater coalescing two updates at the end of a batch"], "\(cases)")
        for kind in ["Int ids", "spread Int ids", "string ids"] {
            #expect(cases.contains("500 \(kind), flat, fresh scratch memory"), "\(cases)")
            #expect(cases.contains("500 \(kind), 100 sections, fresh scratch memory"), "\(cases)")
        }
        #expect(cases.contains("500 spread Int ids, flat, target shuffled"), "\(cases)")
        #expect(cases.contains("500 Int ids in no particular order, flat"), "\(cases)")
        for row in importRows + diffRows {
            for key in ["suite", "case", "median_ms", "baseline", "baseline_median_ms", "ratio"] {
                #expect(row[key] != nil, "\(key) missing in \(row)")
            }
            let median = try #require(row["median_ms"] as? Double)
            let baseline = try #require(row["baseline_median_ms"] as? Double)
            let ratio = try #require(row["ratio"] as? Double)
            #expect(median > 0 && baseline > 0)
            #expect(abs(ratio - median / baseline) <= 0.01 * max(1, ratio))
        }
        #expect(Set(importRows.compactMap { $0["suite"] as? String }) == ["import"])
        #expect(Set(diffRows.compactMap { $0["suite"] as? String }) == ["diff"])
    }

    @Test("the catalog tool turns SQLite's memory statistics off before it opens a database, and bench says so")
    func sqliteMemoryStatisticsOff() throws {
        let cli = try CLIRunner(tool: CLIRunner.benchExecutable)
        defer { cli.cleanUp() }
        let result = try cli.run(["layout", "--items", "200", "--queries", "10", "--runs", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        let line = try #require(result.stderrLines.first { $0.hasPrefix("· SQLite ") })
        #expect(line.hasSuffix(", memory statistics off"), "\(line)")
    }

    @Test("bench layout --json: prepare, rect query and hit test rows per style, with bytes per item")
    func layoutRows() throws {
        let cli = try CLIRunner(tool: CLIRunner.benchExecutable)
        defer { cli.cleanUp() }
        let rows = try #require(try CLIRunner.json(cli.succeed(["layout", "--items", "400", "--runs", "1",
                                                                "--queries", "50", "--json"])) as? [[String: Any]])
        let cases = rows.compactMap { $0["case"] as? String }
        for style in ["flow", "waterfall", "shelf"] {
            for kind in ["prepare (new layout)", "prepare again (storage reused)", "rect query", "hit test"] {
                #expect(cases.contains("\(style) 400: \(kind)"), "missing \(style) \(kind)")
            }
        }
        for row in rows {
            #expect(row["suite"] as? String == "layout")
            let median = try #require(row["median_ms"] as? Double)
            let baseline = try #require(row["baseline_median_ms"] as? Double)
            #expect(median > 0 && baseline > 0)
            if (row["case"] as? String)?.hasSuffix("prepare (new layout)") == true {
                let bytes = try #require(row["bytes_per_item"] as? Double)
                #expect(bytes >= 32, "a frame alone is 32 bytes")
            }
        }
    }

    @Test("bench http --json (in-process client): snapshot, move and change-feed (cached and not) rows against baselines")
    func httpRows() throws {
        let cli = try CLIRunner(tool: CLIRunner.benchExecutable)
        defer { cli.cleanUp() }
        let rows = try #require(try CLIRunner.json(cli.succeed(["http", "--connections", "4", "--queries", "500",
                                                                "--load-generator", "internal", "--runs", "1", "--json"])) as? [[String: Any]])
        // Six cases, each p50, p99 and requests/s, and the authorization check for two credentials.
        #expect(rows.count == 20)
        for row in rows {
            #expect(row["suite"] as? String == "http")
            #expect((row["median_ms"] as? Double ?? 0) > 0 && (row["baseline_median_ms"] as? Double ?? 0) > 0)
        }
        #expect(Set(rows.compactMap { ($0["case"] as? String)?.split(separator: " ").prefix(2).joined(separator: " ") })
                == ["GET /catalogs/shelf", "POST /catalogs/shelf/moves", "GET /catalogs/shelf/changes?since=", "the authorization"])
    }

    @Test("bench follow --json: a follower's latency, catch-up, outbox drain and many catalogues against their baselines")
    func followRows() throws {
        let cli = try CLIRunner(tool: CLIRunner.benchExecutable)
        defer { cli.cleanUp() }
        let rows = try #require(try CLIRunner.json(cli.succeed(["follow", "--follow-writes", "50", "--follow-behind", "300",
                                                                "--follow-queued", "40", "--follow-catalogues", "10", "--runs", "1", "--json"]))
                                as? [[String: Any]])
        #expect(rows.count == 6)
        for row in rows {
            #expect(row["suite"] as? String == "follow")
            #expect((row["median_ms"] as? Double ?? 0) > 0 && (row["baseline_median_ms"] as? Double ?? 0) > 0, "\(row)")
        }
        // The memory each followed catalogue costs, on the device and on the server (Linux's /proc).
        #expect(rows.suffix(2).allSatisfy { $0["bytes_per_item"] is Double }, "\(rows.suffix(2))")
    }

    @Test("bench http --runs 2: every case measured twice, medians and the worst p99 reported")
    func httpRounds() throws {
        let cli = try CLIRunner(tool: CLIRunner.benchExecutable)
        defer { cli.cleanUp() }
        let result = try cli.run(["http", "--connections", "4", "--queries", "500",
                                  "--load-generator", "internal", "--runs", "2", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("round 1 of 2") && result.stderr.contains("round 2 of 2"), "\(result.stderr)")
        let rows = try #require(try CLIRunner.json(result.stdout) as? [[String: Any]])
        // Six cases (moves with no credential, a static token and a JWT among them), each p50, p99,
        // worst p99 and requests/s; and the authorization check alone, for each credential.
        #expect(rows.count == 26)
        let byCase = Dictionary(uniqueKeysWithValues: rows.map { ($0["case"] as? String ?? "", $0["median_ms"] as? Double ?? 0) })
        #expect((byCase["the authorization check, a static token"] ?? 0) > 0 && (byCase["the authorization check, an ES256 JWT, kept verified"] ?? 0) > 0)
        for name in ["GET /catalogs/shelf (1,000 items)", "POST /catalogs/shelf/moves", "GET /catalogs/shelf/changes?since=",
                     "POST /catalogs/shelf/moves with an ES256 JWT (--jwt-key)"] {
            let median = try #require(byCase["\(name) p99, median of 2 runs"])
            let worst = try #require(byCase["\(name) p99, worst of 2 runs"])
            #expect(worst >= median && median > 0)
            #expect(byCase["\(name) requests/s, median of 2 runs"] != nil)
        }
    }

    @Test("bench http refuses --load-generator wrk without wrk on PATH, and zero seconds, connections or runs")
    func httpBadOptions() throws {
        let cli = try CLIRunner(tool: CLIRunner.benchExecutable)
        defer { cli.cleanUp() }
        let missing = try cli.run(["http", "--load-generator", "wrk", "--json"], environment: ["PATH": cli.folder.path])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("wrk is not on PATH"), "\(missing.stderr)")
        #expect(missing.stdout.isEmpty)
        for option in ["--seconds", "--connections"] {
            let zero = try cli.run(["http", option, "0"])
            #expect(zero.status != 0)
            #expect(zero.stderr.contains("--seconds and --connections must be ≥ 1"), "\(zero.stderr)")
        }
        for suite in ["http", "diff"] {
            let noRuns = try cli.run([suite, "--runs", "0"])
            #expect(noRuns.status != 0)
            #expect(noRuns.stderr.contains("--runs must be ≥ 1"), "\(noRuns.stderr)")
        }
        let unknown = try cli.run(["http", "--load-generator", "ab"])
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("auto") && unknown.stderr.contains("wrk") && unknown.stderr.contains("internal"), "\(unknown.stderr)")
    }

    @Test("the catalog binary links no benchmark or test module; catalog-bench holds the benchmarks")
    func catalogLinksNoBenchmarks() throws {
        func symbols(_ binary: URL) throws -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["nm", binary.path]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            try process.run()
            let output = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "nm \(binary.path) failed")
            return String(decoding: output, as: UTF8.self)
        }
        // Swift mangles a module into every symbol it defines as the name's length and the name.
        let modules = ["CatalogBenchmarks", "HummingbirdTesting", "CatalogTestSupport", "Testing", "XCTest"]
        let catalog = try symbols(CLIRunner.executable)
        #expect(catalog.contains("10CatalogCLI"), "no CatalogCLI symbols: nm read the wrong binary")
        for module in modules {
            #expect(!catalog.contains("\(module.count)\(module)"), "catalog links \(module)")
        }
        #expect(try symbols(CLIRunner.benchExecutable).contains("17CatalogBenchmarks"))
    }
}
