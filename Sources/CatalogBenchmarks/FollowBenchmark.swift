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
/// - **many catalogues**: a new device follows `manyCatalogues` catalogues of `booksEach` books on
///   one stream; the time until every copy is in step, against a new device taking one catalogue
///   of all those books; the memory each followed catalogue costs the device's process and the
///   server's (resident set, before and after); and a write to a random one of them → the
///   follower's local observer, against the same with one catalogue followed (the first case).
package struct FollowBenchmark: Sendable {
    package var catalogExecutable: String
    package var books = 1_000
    package var writes = 1_000
    package var behind = 10_000
    package var queued = 1_000
    package var manyCatalogues = 200
    package var booksEach = 40
    package var runs = 3

    package init(catalogExecutable: String) {
        self.catalogExecutable = catalogExecutable
    }

    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    package func run(log: @escaping @Sendable (String) -> Void) throws -> [BenchmarkResult] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-follow-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let serverPath = folder.appendingPathComponent("server.sqlite").path
        let shelves = books / 4
        let catalog = Self.catalog(named: "shelf", books: books)
        let serverStore = try CatalogStore(path: serverPath)
        try serverStore.replace(catalog)
        let many = (0..<manyCatalogues).map { "many\($0)" }
        for name in many { try serverStore.replace(Self.catalog(named: name, books: booksEach)) }
        try serverStore.replace(Self.catalog(named: "all", books: booksEach * manyCatalogues))
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

        // Many catalogues on one stream: every copy, and the memory each costs.
        log("follow: \(manyCatalogues) catalogues on one stream")
        let manyDevice = try CatalogStore(path: folder.appendingPathComponent("many.sqlite").path)
        let (deviceBefore, serverBefore) = (Self.residentBytes(of: nil), Self.residentBytes(of: server.process.processIdentifier))
        var manyFollowing: Task<Void, any Error>?
        let revisions = try Dictionary(uniqueKeysWithValues: (many + ["all"]).map { ($0, try serverStore.revision(of: $0)) })
        let allCopies = try Clock.elapsed { manyFollowing = try Self.followInStep(manyDevice, url, many, at: revisions) }
        let (deviceAfter, serverAfter) = (Self.residentBytes(of: nil), Self.residentBytes(of: server.process.processIdentifier))
        let one = try CatalogStore(path: folder.appendingPathComponent("all.sqlite").path)
        var oneFollowing: Task<Void, any Error>?
        let oneCopy = try Clock.elapsed { oneFollowing = try Self.followInStep(one, url, ["all"], at: revisions) }
        if let oneFollowing { Self.stop(oneFollowing) }
        func perCatalogue(_ before: Int?, _ after: Int?) -> Double? {
            guard let before, let after else { return nil }
            return Double(after - before) / Double(manyCatalogues)
        }
        results.append(BenchmarkResult(suite: "follow", name: "\(manyCatalogues) catalogues of \(booksEach) books followed on one stream: every copy (bytes/item: the device's memory per catalogue)",
                                       medianMS: allCopies, baseline: "one catalogue of all \(manyCatalogues * booksEach) books", baselineMedianMS: oneCopy,
                                       items: manyCatalogues, bytesPerItem: perCatalogue(deviceBefore, deviceAfter)))
        let manySeen = Timeline()
        let watchers = many.map { name in
            Task {
                for try await _ in manyDevice.updates(of: name) {
                    if let revision = try? manyDevice.followedCatalogs().first(where: { $0.name == name })?.serverRevision {
                        manySeen.record(name: name, revision)
                    }
                }
            }
        }
        let manyWriter = BlockingHTTP(port: server.port)
        var manySent: [(name: String, revision: Int, at: UInt64)] = []
        let manyStart = DispatchTime.now().uptimeNanoseconds
        for n in 0..<min(writes, 200) {
            let due = manyStart + UInt64(n) * 20_000_000
            let now = DispatchTime.now().uptimeNanoseconds
            if due > now { Thread.sleep(forTimeInterval: Double(due - now) / 1e9) }
            let name = many[Int.random(in: 0..<many.count, using: &random)]
            let shelvesEach = booksEach / 4
            let body = #"{"item": "b\#(Int.random(in: 0..<booksEach, using: &random))", "toSection": "s\#(Int.random(in: 0..<shelvesEach, using: &random))", "index": 0, "policy": "swap"}"#
            let at = DispatchTime.now().uptimeNanoseconds
            let answer = try manyWriter.request("POST", "/catalogs/\(name)/moves", body: body)
            guard answer.status == 200, let revision = Self.revision(answer.body) else { continue }
            manySent.append((name, revision, at))
        }
        manyWriter.close()
        try Self.wait("the follower at every write", timeout: 120) { manySent.allSatisfy { manySeen.reached(name: $0.name, $0.revision) } }
        for watcher in watchers { watcher.cancel() }
        if let manyFollowing { Self.stop(manyFollowing) }
        let manyLatencies = manySent.compactMap { manySeen.latency(name: $0.name, of: $0.revision, sentAt: $0.at) }
        results.append(BenchmarkResult(suite: "follow", name: "write to one of \(manyCatalogues) followed catalogues → follower's local observer p50 (bytes/item: the server's memory per followed catalogue)",
                                       medianMS: Clock.percentile(manyLatencies, 0.5), baseline: "one catalogue followed (above)",
                                       baselineMedianMS: Clock.percentile(follower, 0.5), items: 1, bytesPerItem: perCatalogue(serverBefore, serverAfter)))
        return results
    }

    /// A catalogue of `books` books, four to a shelf of capacity 8.
    static func catalog(named name: String, books: Int) -> Catalog {
        Catalog(name: name, sections: (0..<max(1, books / 4)).map { s in
            Section(id: "s\(s)", kind: .bookshelf, capacity: 8, items: (0..<4).map { i in
                Item(id: "b\(s * 4 + i)", content: .book(Book(title: "Book \(s * 4 + i)", cover: "c\(i)")))
            })
        })
    }

    /// The resident set of process `pid` (nil: this one), from `/proc`; nil where there is none.
    static func residentBytes(of pid: Int32?) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid.map(String.init) ?? "self")/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else { return nil }
        return kilobytes * 1024
    }

    /// Starts a client following the catalogue into `store`, and returns once its copy is at
    /// the server's revision with nothing of its own waiting (``CatalogClient/waitUntilInStep(with:)``:
    /// woken by the client's changes, so the wait adds no reads of its own to what is timed).
    ///
    /// With `revisions` (the server's, known to the caller), it polls the device's copies every
    /// millisecond instead, so that many catalogues are not timed with a request each.
    static func followInStep(_ store: CatalogStore, _ url: URL, _ names: [String] = ["shelf"], at revisions: [String: Int]? = nil) throws -> Task<Void, any Error> {
        let client = try CatalogClient(store: store, server: url, log: .discarding)
        let following = Task { try await client.run(following: names) }
        if let revisions {
            try wait("the copies at the server's revisions", timeout: 300) {
                guard let followed = try? store.followedCatalogs() else { return false }
                let standing = Dictionary(followed.map { ($0.name, $0.serverRevision) }, uniquingKeysWith: max)
                return names.allSatisfy { (standing[$0] ?? 0) >= (revisions[$0] ?? 0) && (standing[$0] ?? 0) > 0 }
            }
            return following
        }
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var error: (any Error)? = nil
        Task {
            do {
                for name in names { try await client.waitUntilInStep(with: name) }
            } catch let caught { error = caught }
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

/// When each server revision of each catalogue was first seen (a later revision counts for every
/// earlier one).
final class Timeline: @unchecked Sendable {
    private let lock = NSLock()
    private var marks: [String: [(revision: Int, at: UInt64)]] = [:]

    func record(name: String = "", _ revision: Int) {
        let now = DispatchTime.now().uptimeNanoseconds
        lock.withLock {
            if revision > (marks[name]?.last?.revision ?? -1) { marks[name, default: []].append((revision, now)) }
        }
    }

    func reached(name: String = "", _ revision: Int) -> Bool { lock.withLock { (marks[name]?.last?.revision ?? -1) >= revision } }

    /// Milliseconds from `sentAt` to the first mark at or past `revision`.
    func latency(name: String = "", of revision: Int, sentAt: UInt64) -> Double? {
        lock.withLock {
            guard let mark = marks[name]?.first(where: { $0.revision >= revision }) else { return nil }
            return Double(Int64(mark.at) - Int64(sentAt)) / 1e6
        }
    }
}
