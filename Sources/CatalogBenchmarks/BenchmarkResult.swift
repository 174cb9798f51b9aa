import CatalogImport
import Foundation

/// One benchmark case measured against a baseline in the same run.
package struct BenchmarkResult: Sendable, Hashable {
    package var suite: String
    package var name: String
    /// Median wall time of the case, in milliseconds.
    package var medianMS: Double
    package var baseline: String
    package var baselineMedianMS: Double
    /// How many items one run handles, for a throughput figure.
    package var items: Int
    /// Heap bytes the measured structure keeps alive per item, where the case measures memory.
    package var bytesPerItem: Double?

    package init(suite: String, name: String, medianMS: Double, baseline: String, baselineMedianMS: Double,
                items: Int, bytesPerItem: Double? = nil) {
        self.suite = suite
        self.name = name
        self.medianMS = medianMS
        self.baseline = baseline
        self.baselineMedianMS = baselineMedianMS
        self.items = items
        self.bytesPerItem = bytesPerItem
    }

    /// `median / baseline median`: below 1 is faster than the baseline.
    package var ratio: Double { baselineMedianMS > 0 ? medianMS / baselineMedianMS : .nan }

    /// Items per second at the median.
    package var itemsPerSecond: Double { medianMS > 0 ? Double(items) / (medianMS / 1000) : .nan }

    /// The row of `catalog-bench --json` (plus `bytes_per_item` where memory was measured).
    package var jsonValue: OrderedJSON {
        var members: [(String, OrderedJSON)] = [
            ("suite", .string(suite)), ("case", .string(name)), ("median_ms", .double(Self.round(medianMS))),
            ("baseline", .string(baseline)), ("baseline_median_ms", .double(Self.round(baselineMedianMS))),
            ("ratio", .double(Self.round(ratio))), ("items", .integer(items)),
        ]
        if let bytesPerItem { members.append(("bytes_per_item", .double(Self.round(bytesPerItem)))) }
        return .object(members)
    }

    /// Three decimals, or four significant digits for smaller values (a rect query takes microseconds).
    static func round(_ value: Double) -> Double {
        guard value.isFinite, value != 0 else { return value }
        let decimals = max(3, 3 - Int(log10(abs(value)).rounded(.down)))
        let scale = pow(10, Double(min(decimals, 12)))
        return (value * scale).rounded() / scale
    }
}

/// Times closures. A case and its baseline run alternately, so that a noisy neighbour on a shared
/// machine slows both alike instead of skewing the ratio.
enum Clock {
    /// One timed run of `body` in milliseconds; `setUp` runs first, untimed.
    static func time<State>(setUp: () throws -> State, _ body: (State) throws -> Void) rethrows -> Double {
        let state = try setUp()
        return try elapsed { try body(state) }
    }

    /// Medians of `runs` alternating runs of the case and its baseline, after one untimed warm-up
    /// of each.
    static func compare<A, B>(
        runs: Int,
        case setUpCase: () throws -> A, _ body: (A) throws -> Void,
        baseline setUpBaseline: () throws -> B, _ baselineBody: (B) throws -> Void
    ) rethrows -> (median: Double, baselineMedian: Double) {
        var times: [Double] = []
        var baselineTimes: [Double] = []
        for run in 0...runs {
            let baseline = try time(setUp: setUpBaseline, baselineBody)
            let candidate = try time(setUp: setUpCase, body)
            if run > 0 {
                baselineTimes.append(baseline)
                times.append(candidate)
            }
        }
        return (median(times), median(baselineTimes))
    }

    /// Milliseconds taken by `body`.
    @inline(__always)
    static func elapsed(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    }

    /// The value below which a fraction `p` of `values` lie (nearest rank).
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
