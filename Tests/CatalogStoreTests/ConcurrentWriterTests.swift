import CatalogModel
import CatalogStore
import Foundation
import Testing

/// Issue #5's concurrency: writers on separate connections to one database file apply batches at
/// once. Every batch lands or fails with a conflict (a stale base revision); none is lost; the
/// final revision counts exactly the batches that landed.
@Suite struct ConcurrentWriterTests {
    @Test func writersOnOneFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-concurrency-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("shared.sqlite").path
        let setup = try CatalogStore(path: path)
        var shelves = Catalog(name: "shelf", sections: (0..<4).map { Section(id: "s\($0)", kind: .bookshelf, capacity: 1_000) })
        shelves.revision = try setup.replace(shelves).revision

        let writers = 4, batchesPerWriter = 20
        let results = ResultLog()
        let start = Barrier(count: writers)
        // One thread per writer (a dispatch pool may run fewer at once than the barrier waits for).
        let done = DispatchGroup()
        let threads = (0..<writers).map { writer in Thread {
            defer { done.leave() }
            do {
                // Each writer has its own connection pool, as separate processes would.
                let store = try CatalogStore(path: path)
                // Every writer makes its first batch against the same revision, so all but one
                // of those first batches must conflict.
                let first = try store.revision(of: "shelf")
                start.wait()
                for n in 0..<batchesPerWriter {
                    // Half the batches say which revision they were made against; the others apply to whatever is current.
                    let base = n == 0 ? first : n % 2 == 0 ? try store.revision(of: "shelf") : nil
                    // A client thinks for a moment between reading and writing: others may write meanwhile.
                    usleep(UInt32.random(in: 0...400))
                    let id = "w\(writer)-\(n)"
                    let batch = Batch(baseRevision: base, operations: [
                        .insertItem(section: "s\(n % 4)", index: 0, item: Item(id: id, content: .book(Book(title: id, cover: id)))),
                        .moveItem(id: id, toSection: "s\((n + writer) % 4)", index: 0),
                    ])
                    do {
                        try store.apply(batch, to: "shelf")
                        results.landed(id)
                    } catch StoreError.rejected(_, let error) where error.reason.current != nil {
                        results.conflicted(id)
                    }
                }
            } catch {
                results.failed("\(error)")
            }
        } }
        for thread in threads {
            done.enter()
            thread.start()
        }
        done.wait()
        #expect(results.failures == [])
        #expect(results.landedIDs.count + results.conflicts == writers * batchesPerWriter)
        let final = try setup.catalog(named: "shelf")
        #expect(final.revision == shelves.revision + results.landedIDs.count)
        #expect(Set(final.sections.flatMap { $0.items.map(\.id) }) == Set(results.landedIDs), "no lost update")
        #expect(results.landedIDs.count >= writers * batchesPerWriter / 2, "every batch without a base revision lands")
        #expect(results.conflicts >= writers - 1, "of the first batches, made against one revision, only one can land")
        try setup.checkIntegrity()
        print("concurrent writers: \(results.landedIDs.count) batches landed, \(results.conflicts) conflicts")
    }
}

/// Holds threads until `count` of them have arrived.
final class Barrier: @unchecked Sendable {
    private let condition = NSCondition()
    private var waiting: Int

    init(count: Int) {
        waiting = count
    }

    func wait() {
        condition.lock()
        waiting -= 1
        if waiting == 0 { condition.broadcast() }
        while waiting > 0 { condition.wait() }
        condition.unlock()
    }
}

/// What the writers report, from several threads.
final class ResultLog: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var landedIDs: [String] = []
    private(set) var conflicts = 0
    private(set) var failures: [String] = []

    func landed(_ id: String) { lock.withLock { landedIDs.append(id) } }
    func conflicted(_ id: String) { lock.withLock { conflicts += 1 } }
    func failed(_ message: String) { lock.withLock { failures.append(message) } }
}

extension BatchError.Reason {
    /// The current revision of a stale-revision conflict.
    var current: Int? {
        if case .staleRevision(_, let current) = self { return current }
        return nil
    }
}
