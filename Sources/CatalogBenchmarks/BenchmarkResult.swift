import CatalogImport
import Foundation

/// One benchmark case measured against a baseline in the same run.
public struct BenchmarkResult: Sendable, Hashable {
    public var suite: String
    public var name: String
    /// Median wall time of the case, in milliseconds.
    public var medianMS: Double
    public var baseline: String
    public var baselineMedianMS: Double
    /// How many items one run handles, for a throughput figure.
    public var items: Int

    /// `median / baseline median`: below 1 is faster than the baseline.
    public var ratio: Double { baselineMedianMS > 0 ? medianMS / baselineMedianMS : .nan }

    /// Items per second at the median.
    public var itemsPerSecond: Double { medianMS > 0 ? Double(items) / (medianMS / 1000) : .nan }

    /// The row of `catalog bench --json`.
    public var jsonValue: OrderedJSON {
        .object([("suite", .string(suite)), ("case", .string(name)), ("median_ms", .double(Self.round(medianMS))),
                 ("baseline", .string(baseline)), ("baseline_median_ms", .double(Self.round(baselineMedianMS))),
                 ("ratio", .double(Self.round(ratio))), ("items", .integer(items))])
    }

    static func round(_ value: Double) -> Double {
        (value * 1000).rounded() / 1000
    }
}

/// Times closures and keeps medians.
enum Clock {
    /// Runs `body` `runs` times after one untimed warm-up, calling `setUp` before each run
    /// (untimed), and returns the median wall time in milliseconds.
    static func median<State>(runs: Int, setUp: () throws -> State, _ body: (State) throws -> Void) rethrows -> Double {
        var times: [Double] = []
        for run in 0...runs {
            let state = try setUp()
            let start = DispatchTime.now().uptimeNanoseconds
            try body(state)
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
            if run > 0 { times.append(elapsed) }
        }
        times.sort()
        return times.count % 2 == 1 ? times[times.count / 2] : (times[times.count / 2 - 1] + times[times.count / 2]) / 2
    }
}
