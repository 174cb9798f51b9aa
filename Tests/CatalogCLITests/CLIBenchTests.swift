import Foundation
import Testing

@Suite("catalog bench")
struct CLIBenchTests {
    @Test("bench --json prints SPEC §6's rows, each with a baseline measured in the same run")
    func jsonRows() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let importRows = try #require(try CLIRunner.json(cli.succeed(["bench", "import", "--items", "300", "--runs", "1", "--json"])) as? [[String: Any]])
        let diffRows = try #require(try CLIRunner.json(cli.succeed(["bench", "diff", "--diff-sizes", "500", "--runs", "1", "--json"])) as? [[String: Any]])
        #expect(importRows.count == 4)
        #expect(diffRows.count == 8)  // per id kind: flat, 100 sections, floor, stdlib
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
}
