import Foundation
import Testing
@testable import CatalogBenchmarks

/// The live benchmark's measurements run to the end on small inputs and give a latency for
/// every update.
@Suite struct LiveBenchmarkTests {
    @Test func latenciesAreMeasured() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("live-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let ours = try await LiveBenchmark.ourLatencies(books: 200, observers: 3, moves: 20, folder: folder, name: "ours")
        #expect(ours.count >= 3 && ours.allSatisfy { $0 >= 0 })
        let theirs = try await LiveBenchmark.observationLatencies(books: 200, observers: 3, moves: 20, folder: folder)
        #expect(theirs.count >= 3 && theirs.allSatisfy { $0 >= 0 })
        let other = try await LiveBenchmark.ourLatencies(books: 200, observers: 1, moves: 10, folder: folder, name: "other", otherConnection: true)
        #expect(other.count >= 1)
    }
}
