import ArgumentParser
import CatalogBenchmarks
import Foundation

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Run benchmarks, each against a baseline measured in the same run (use a release build).",
        discussion: "Suites: import, diff. Example: swift run -c release catalog bench diff"
    )

    enum Suite: String, ExpressibleByArgument, CaseIterable {
        case all, `import`, diff
    }

    @Argument(help: "Which suite: all, import or diff.")
    var suite: Suite = .all

    @Option(help: "Items in the benchmark catalogue.")
    var items: Int = 100_000

    @Option(parsing: .upToNextOption, help: "Snapshot sizes for the diff suite (e.g. --diff-sizes 5000 100000).")
    var diffSizes: [Int] = [5_000, 100_000, 1_000_000]

    @Option(help: "Timed runs per case (the median is reported).")
    var runs: Int = 7

    @Flag(help: "Print JSON: [{suite, case, median_ms, baseline, baseline_median_ms, ratio}].")
    var json = false

    func validate() throws {
        guard items > 0 else { throw ValidationError("--items must be ≥ 1") }
        guard runs > 0 else { throw ValidationError("--runs must be ≥ 1") }
    }

    func run() throws {
        #if DEBUG
        if !json {
            print("note: this is a debug build; measure with `swift run -c release catalog bench`.")
        }
        #endif
        let log: (String) -> Void = { message in
            FileHandle.standardError.write(Data("· \(message)\n".utf8))
        }
        var results: [BenchmarkResult] = []
        if suite == .all || suite == .import {
            results += try ImportBenchmark(items: items, runs: runs).run(log: log)
        }
        if suite == .all || suite == .diff {
            results += try DiffBenchmark(sizes: diffSizes, runs: runs).run(log: log)
        }
        if json {
            Output.json(.array(results.map(\.jsonValue)))
            return
        }
        print(Output.table(
            ["SUITE", "CASE", "MEDIAN ms", "ITEMS/s", "BASELINE", "BASELINE ms", "RATIO"],
            results.map { r in
                [r.suite, r.name, String(format: "%.1f", r.medianMS), String(format: "%.0f", r.itemsPerSecond),
                 r.baseline, String(format: "%.1f", r.baselineMedianMS), String(format: r.ratio < 0.1 ? "%.3f×" : "%.2f×", r.ratio)]
            },
            rightAligned: [2, 3, 5, 6]))
    }
}
