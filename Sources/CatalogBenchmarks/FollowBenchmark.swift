import CatalogClient
import CatalogModel
import CatalogStore
import Foundation
import Logging

/// The device's side (docs/Following-a-server.md), against `catalog serve` running as its own
/// process: a ``CatalogClient`` in this process following a 1,000-book catalogue into a local
/// SQLite file.
///
/// - **write → local observer**: a writer moves a book over one keep-alive connection 100 times a
///   second; measured is the time from sending each move to the follower's local observer
///   seeing the copy at that server revision. Baseline: the same moves' events read straight
///   off the server's event stream (what the follower itself waits for).
/// - **catch-up**: the follower stopped while the server takes `behind` writes, then started;
///   the time until its copy is at the server's revision. Baseline: a new device taking the
///   catalogue's snapshot into an empty file.
/// - **outbox drain**: `queued` moves made on the device while the client is stopped, then the
///   client started; the time until the outbox is empty. Baseline: the same number of moves
///   sent one at a time over one keep-alive connection (a round trip each, no outbox).
public struct FollowBenchmark: Sendable {
    public var catalogExecutable: String
    public var books = 1_000
    public var writes = 1_000
    public var behind = 10_000
    public var queued = 1_000
    public var runs = 3

    public init(catalogExecutable: String) {
        self.catalogExecutable = catalogExecutable
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public func run(log: @escaping @Sendable (String) -> Void) throws -> [BenchmarkResult] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-follow-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let serverPath = folder.appendingPathComponent("server.sqlite").path
        let shelves = books / 4
        let catalog = Catalog(name: "shelf", sections: (0..<shelves).map { s in
            Section(id: "s\(s)", kind: .bookshelf, capacity: 8, items: (0..<4).map { i in
                Item(id: "b\(s * 4 + i)", content: .book(Book(title: "Book \(s * 4 + i)", cover: "c\(i)")))
            })
        })
        let serverStore = try CatalogStore(path: serverPath)
        try serverStore.replace(catalog)
        try serverStore.setJournalRevisions(behind * 2)
        let server = try ServerProcess.start(catalogExecutable, database: serverPath, log: folder.appendingPathComponent("serve.log").path)
        defer { server.stop() }
        let url = URL(string: "http://127.0.0.1:\(server.port)")!
        var random = SystemRandomNumberGenerator()
        func move() -> String {
            #"{"item": "b\#(Int.random(in: 0..<books, using: &random))", "toSection": "s\#(Int.random(in: 0..<shelves, using: &random))", "index": 0, "policy": "swap"}"#
        }
        var results: [BenchmarkResult] = []

        // Write → local observer, against the server's own event stream.
        let devicePath = folder.appendingPathComponent("device.sqlite").path
        let device = try CatalogStore(path: devicePath)
        var following = try Self.followInStep(device, url)
        log("follow: \(writes) moves at 100 a second")
        let seen = Timeline()
        let watcher = Task {
            for try await _ in device.updates(of: "shelf") {
                if let revision = try? device.followedCatalogs().first?.serverRevision { seen.record(revision) }
            }
        }
        nonisolated(unsafe) let stream = BlockingHTTP(port: server.port)
        let streamed = Timeline()
        _ = try stream.open("/catalogs/shelf/events", headers: ["Last-Event-ID": String(try serverStore.revision(of: "shelf"))])
        let reader = Thread {
            var parser = ServerSentEventParser()
            while let chunk = try? stream.nextChunk() {
                for event in (try? parser.feed(chunk)) ?? [] { if let id = event.id.flatMap(Int.init) { streamed.record(id) } }
            }
        }
        reader.start()
        let writer = BlockingHTTP(port: server.port)
        var sent: [(revision: Int, at: UInt64)] = []
        let start = DispatchTime.now().uptimeNanoseconds
        for n in 0..<writes {
            let due = start + UInt64(n) * 10_000_000
            let now = DispatchTime.now().uptimeNanoseconds
            if due > now { Thread.sleep(forTimeInterval: Double(due - now) / 1e9) }
            let at = DispatchTime.now().uptimeNanoseconds
            let answer = try writer.request("POST", "/catalogs/shelf/moves", body: move())
            guard answer.status == 200, let revision = Self.revision(answer.body) else { continue }
            sent.append((revision, at))
        }
        writer.close()
        let last = sent.last?.revision ?? 0
        try Self.wait("the follower at the last write", timeout: 120) { seen.reached(last) && streamed.reached(last) }
        watcher.cancel()
        stream.interrupt()
        let follower = sent.compactMap { seen.latency(of: $0.revision, sentAt: $0.at) }
        let direct = sent.compactMap { streamed.latency(of: $0.revision, sentAt: $0.at) }
        for (label, p) in [("p50", 0.5), ("p99", 0.99)] {
            results.append(BenchmarkResult(suite: "follow", name: "server write → follower's local observer \(label), 100 writes/s",
                                           medianMS: Clock.percentile(follower, p), baseline: "the same event read off the server's stream",
                                           baselineMedianMS: Clock.percentile(direct, p), items: 1))
        }

        // Catch-up after `behind` writes, against a new device's first snapshot.
        var catchUps: [Double] = [], snapshots: [Double] = []
        for run in 0..<runs {
            Self.stop(following)
            log("follow: catch-up \(run + 1)/\(runs), \(behind) revisions behind")
            for _ in 0..<behind {
                let book = "b\(Int.random(in: 0..<books, using: &random))", shelf = "s\(Int.random(in: 0..<shelves, using: &random))"
                _ = try? serverStore.move(item: book, toSection: shelf, index: 0, policy: .swap, in: "shelf")
            }
            catchUps.append(try Clock.elapsed {
                following = try Self.followInStep(device, url)
            })
            let fresh = try CatalogStore(path: folder.appendingPathComponent("fresh-\(run).sqlite").path)
            var other: Task<Void, any Error>?
            snapshots.append(try Clock.elapsed {
                other = try Self.followInStep(fresh, url)
            })
            if let other { Self.stop(other) }
        }
        results.append(BenchmarkResult(suite: "follow", name: "catch up \(behind) revisions behind", medianMS: Clock.median(catchUps),
                                       baseline: "a new device taking the snapshot", baselineMedianMS: Clock.median(snapshots), items: behind))

        // The outbox drained, against the same moves sent one at a time.
        var drains: [Double] = [], bare: [Double] = []
        for run in 0..<runs {
            Self.stop(following)
            log("follow: outbox of \(queued) moves \(run + 1)/\(runs)")
            var made = 0
            while made < queued {
                let book = "b\(Int.random(in: 0..<books, using: &random))", shelf = "s\(Int.random(in: 0..<shelves, using: &random))"
                if (try? device.move(item: book, toSection: shelf, index: 0, policy: .swap, in: "shelf"))?.revision != nil { made += 1 }
            }
            let waiting = try device.outbox().count
            drains.append(try Clock.elapsed {
                following = try Self.followInStep(device, url)
            })
            let sender = BlockingHTTP(port: server.port)
            bare.append(try Clock.elapsed {
                for _ in 0..<waiting { _ = try sender.request("POST", "/catalogs/shelf/moves", body: move()) }
            })
            sender.close()
        }
        Self.stop(following)
        results.append(BenchmarkResult(suite: "follow", name: "outbox of \(queued) moves drained", medianMS: Clock.median(drains),
                                       baseline: "the moves sent one at a time", baselineMedianMS: Clock.median(bare), items: queued))
        return results
    }

    /// Starts a client following the catalogue into `store`, and returns once its copy is at
    /// the server's revision with nothing of its own waiting (``CatalogClient/waitUntilInStep(with:)``:
    /// woken by the client's changes, so the wait adds no reads of its own to what is timed).
    static func followInStep(_ store: CatalogStore, _ url: URL) throws -> Task<Void, any Error> {
        var logger = Logger(label: "CatalogClient")
        logger.logLevel = .error
        let client = try CatalogClient(store: store, server: url, logger: logger)
        let following = Task { try await client.run(following: ["shelf"]) }
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var error: (any Error)? = nil
        Task {
            do { try await client.waitUntilInStep(with: "shelf") } catch let caught { error = caught }
            done.signal()
        }
        guard done.wait(timeout: .now() + 300) == .success else {
            stop(following)
            throw Failure(description: "follow: the client did not reach the server's revision within 300 s")
        }
        if let error { throw error }
        return following
    }

    /// Cancels the client's task and waits for it to end.
    static func stop(_ task: Task<Void, any Error>) {
        task.cancel()
        let done = DispatchSemaphore(value: 0)
        Task {
            _ = await task.result
            done.signal()
        }
        done.wait()
    }

    static func revision(_ body: [UInt8]) -> Int? {
        ((try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any])?["revision"] as? Int
    }

    /// Polls `condition`, which reads memory only, every millisecond.
    static func wait(_ what: String, timeout: Double, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            guard Date() < deadline else { throw Failure(description: "follow: \(what) did not happen within \(Int(timeout)) s") }
            Thread.sleep(forTimeInterval: 0.001)
        }
    }
}

/// When each server revision was first seen (a later revision counts for every earlier one).
final class Timeline: @unchecked Sendable {
    private let lock = NSLock()
    private var marks: [(revision: Int, at: UInt64)] = []

    func record(_ revision: Int) {
        let now = DispatchTime.now().uptimeNanoseconds
        lock.withLock {
            if revision > (marks.last?.revision ?? -1) { marks.append((revision, now)) }
        }
    }

    func reached(_ revision: Int) -> Bool { lock.withLock { (marks.last?.revision ?? -1) >= revision } }

    /// Milliseconds from `sentAt` to the first mark at or past `revision`.
    func latency(of revision: Int, sentAt: UInt64) -> Double? {
        lock.withLock {
            guard let mark = marks.first(where: { $0.revision >= revision }) else { return nil }
            return Double(Int64(mark.at) - Int64(sentAt)) / 1e6
        }
    }
}
