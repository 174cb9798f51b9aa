import CBenchmarkSupport
import CatalogModel
import CatalogServer
import CatalogStore
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `catalog-bench live`'s event-stream case: `subscribers` clients follow one catalogue's
/// `GET /catalogs/{name}/events` while a writer moves a book `movesPerSecond` times a second for
/// `seconds` seconds; the time from each move call (its commit inside) to each subscriber's
/// reading of that revision's event, p50 and p99 over every event of every subscriber, against
/// the same run with one subscriber. The subscribers are plain sockets read by one thread (with
/// `epoll` on Linux, `poll` elsewhere), so that the client costs the cores it shares with the
/// server as little as it can; every subscriber must
/// see every revision in order (a coalesced event covers the revisions since its `fromRevision`).
public struct FanoutBenchmark: Sendable {
    public var subscribers: Int
    public var movesPerSecond: Int
    public var seconds: Double

    public init(subscribers: Int = 1_000, movesPerSecond: Int = 100, seconds: Double = 30) {
        self.subscribers = subscribers
        self.movesPerSecond = movesPerSecond
        self.seconds = seconds
    }

    /// What one run saw.
    struct Outcome: Sendable {
        var latencies: [Double]
        var moves: Int
        var events: Int
        /// Events whose `fromRevision` was not the subscriber's previous revision.
        var outOfOrder: Int
        /// Subscribers not at the last revision when the run ended.
        var behind: Int
    }

    public func run(log: @escaping @Sendable (String) -> Void = { _ in }) throws -> [BenchmarkResult] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-bench-fanout-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Every subscriber's socket, and the server's end of it, in this process.
        var limit = rlimit()
        getrlimit(Self.fileLimit, &limit)
        limit.rlim_cur = max(limit.rlim_cur, min(limit.rlim_max, rlim_t(2 * subscribers + 256)))
        setrlimit(Self.fileLimit, &limit)

        let store = try CatalogStore(path: folder.appendingPathComponent("fanout.sqlite").path)
        var catalog = Catalog.generated(name: "shelf", items: 1_000, sections: 10, kind: .bookshelf, seed: 9)
        for s in catalog.sections.indices { catalog.sections[s].capacity = 1_000 }
        try store.replace(catalog)
        var logger = Logger(label: "catalog.bench.fanout", factory: ServerLogHandler.standardError)
        logger.logLevel = .warning
        let app = CatalogServer.application(store: store, configuration: ServerConfiguration(port: 0), logger: logger)
        let (subscribers, perSecond, seconds) = (self.subscribers, movesPerSecond, self.seconds)
        let book = catalog.sections[0].items[0].id, shelf = catalog.sections[0].id
        let (one, many) = try LiveBenchmark.blocking {
            try await app.test(.live) { client in
                let port = client.port!
                log("live: event stream, 1 subscriber, \(perSecond) moves/s for \(Int(seconds)) s")
                let one = try await Self.measure(port: port, subscribers: 1, store: store, book: book, shelf: shelf,
                                                 perSecond: perSecond, seconds: seconds)
                log("live: event stream, \(subscribers) subscribers, \(perSecond) moves/s for \(Int(seconds)) s")
                let many = try await Self.measure(port: port, subscribers: subscribers, store: store, book: book, shelf: shelf,
                                                  perSecond: perSecond, seconds: seconds)
                return (one, many)
            }
        }
        guard many.outOfOrder == 0, many.behind == 0, one.outOfOrder == 0, one.behind == 0 else {
            throw FanoutError.missedRevisions(outOfOrder: many.outOfOrder + one.outOfOrder, behind: many.behind + one.behind)
        }
        let label = "event stream, \(subscribers.abbreviated) subscribers, \(many.moves) moves in \(Int(seconds)) s"
        return [("p50", 0.5), ("p99", 0.99)].map { name, p in
            BenchmarkResult(suite: "live", name: "\(label): move → event \(name)",
                            medianMS: Clock.percentile(many.latencies, p), baseline: "1 subscriber \(name)",
                            baselineMedianMS: Clock.percentile(one.latencies, p), items: 1)
        }
    }

    private static let fileLimit = {
        #if canImport(Glibc)
        __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        RLIMIT_NOFILE
        #endif
    }()

    /// Subscribes `subscribers` sockets from the current revision, then moves `book` back and
    /// forth within `shelf` at `perSecond` for `seconds`, and reads every stream meanwhile.
    private static func measure(port: Int, subscribers: Int, store: CatalogStore, book: String, shelf: String,
                                perSecond: Int, seconds: Double) async throws -> Outcome {
        let start = try store.revision(of: "shelf")
        let reader = try StreamReader(port: port, subscribers: subscribers, since: start)
        let thread = Thread { reader.readUntilStopped() }
        thread.start()
        // Every stream answered before the first move.
        let connectDeadline = Date().addingTimeInterval(30)
        while reader.answeredCount < subscribers, Date() < connectDeadline { try await Task.sleep(for: .milliseconds(20)) }

        let total = Int(Double(perSecond) * seconds)
        let interval = 1.0 / Double(perSecond)
        let began = DispatchTime.now().uptimeNanoseconds
        var revision = start
        for n in 0..<total {
            reader.willWrite(revision: revision + 1, at: DispatchTime.now().uptimeNanoseconds)
            revision = try await store.move(item: book, toSection: shelf, index: n % 2 == 0 ? 1 : 0, in: "shelf").revision
            let next = began + UInt64(Double(n + 1) * interval * 1e9)
            let now = DispatchTime.now().uptimeNanoseconds
            if next > now { try await Task.sleep(nanoseconds: next - now) }
        }
        let catchUp = Date().addingTimeInterval(5)
        while reader.subscribersAt(revision) < subscribers, Date() < catchUp { try await Task.sleep(for: .milliseconds(20)) }
        reader.stop()
        while !reader.finished { try await Task.sleep(for: .milliseconds(5)) }
        return reader.outcome(moves: total, last: revision)
    }
}

enum FanoutError: Error, CustomStringConvertible {
    case connect(String)
    case missedRevisions(outOfOrder: Int, behind: Int)

    var description: String {
        switch self {
        case .connect(let detail): "a subscriber could not connect: \(detail)"
        case .missedRevisions(let outOfOrder, let behind):
            "subscribers missed revisions: \(outOfOrder) events out of order, \(behind) subscribers behind at the end"
        }
    }
}

/// The subscribers' sockets, read by one thread: each `id:` line is timed against
/// the instant the writer began the move that made that revision.
private final class StreamReader: @unchecked Sendable {
    private let lock = NSLock()
    private var fds: [pollfd]
    private var pending: [[UInt8]]
    private var last: [Int]
    private var answered: [Bool]
    private var sentAt: [Int: UInt64] = [:]
    private var latencies: [Double] = []
    private var events = 0
    private var outOfOrder = 0
    private var stopping = false
    private(set) var finished = false

    init(port: Int, subscribers: Int, since revision: Int) throws {
        fds = []
        for _ in 0..<subscribers {
            let fd = socket(AF_INET, Self.streamType, 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard fd >= 0, connected == 0 else { throw FanoutError.connect(String(cString: strerror(errno))) }
            let request = Array("GET /catalogs/shelf/events?since=\(revision) HTTP/1.1\r\nHost: bench\r\n\r\n".utf8)
            _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0))
        }
        pending = Array(repeating: [], count: subscribers)
        last = Array(repeating: revision, count: subscribers)
        answered = Array(repeating: false, count: subscribers)
    }

    private static let streamType = {
        #if canImport(Glibc)
        Int32(SOCK_STREAM.rawValue)
        #else
        SOCK_STREAM
        #endif
    }()

    var answeredCount: Int { lock.withLock { answered.filter { $0 }.count } }

    func subscribersAt(_ revision: Int) -> Int { lock.withLock { last.filter { $0 >= revision }.count } }

    func willWrite(revision: Int, at time: UInt64) { lock.withLock { sentAt[revision] = time } }

    func stop() { lock.withLock { stopping = true } }

    func outcome(moves: Int, last revision: Int) -> FanoutBenchmark.Outcome {
        lock.withLock {
            FanoutBenchmark.Outcome(latencies: latencies, moves: moves, events: events, outOfOrder: outOfOrder,
                                    behind: last.filter { $0 != revision }.count)
        }
    }

    func readUntilStopped() {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        func read(_ s: Int) {
            let count = buffer.withUnsafeMutableBytes { recv(fds[s].fd, $0.baseAddress, $0.count, 0) }
            // Timed after the read: what it returned may have arrived after the wait did.
            if count > 0 { take(buffer[0..<count], subscriber: s, at: DispatchTime.now().uptimeNanoseconds) }
        }
        #if os(Linux)
        // epoll: a wait costs the sockets that are ready, where `poll` would scan all of them.
        let queue = catalog_epoll_create()
        for (s, entry) in fds.enumerated() { _ = catalog_epoll_add(queue, entry.fd, UInt32(s)) }
        var ready = [UInt32](repeating: 0, count: 1_024)
        while !lock.withLock({ stopping }) {
            let count = catalog_epoll_wait(queue, &ready, Int32(ready.count), 50)
            for n in 0..<max(0, Int(count)) { read(Int(ready[n])) }
        }
        close(queue)
        #else
        while !lock.withLock({ stopping }) {
            guard poll(&fds, nfds_t(fds.count), 50) > 0 else { continue }
            for s in fds.indices where fds[s].revents & Int16(POLLIN) != 0 { read(s) }
        }
        #endif
        for entry in fds { close(entry.fd) }
        lock.withLock { finished = true }
    }

    /// Splits what arrived into lines; an `id:` line and the `data:` line after it make one event.
    /// Bytes are scanned as bytes: the reader shares the cores with the server it measures.
    private func take(_ bytes: ArraySlice<UInt8>, subscriber s: Int, at now: UInt64) {
        pending[s] += bytes
        let line = pending[s]
        var lineStart = 0
        var id: Int?
        var idLineStart = 0
        lock.lock()
        defer { lock.unlock() }
        answered[s] = true
        for index in line.indices where line[index] == UInt8(ascii: "\n") {
            let start = lineStart
            lineStart = index + 1
            if Self.starts(line, at: start, with: Self.idPrefix) {
                id = Self.number(line, from: start + Self.idPrefix.count)
                idLineStart = start
            } else if let revision = id, Self.starts(line, at: start, with: Self.dataPrefix) {
                id = nil
                events += 1
                if let from = Self.find(Self.fromRevisionKey, in: line, from: start, to: index) {
                    if Self.number(line, from: from + Self.fromRevisionKey.count) != last[s] || revision <= last[s] { outOfOrder += 1 }
                }
                last[s] = revision
                if let sent = sentAt[revision], now > sent { latencies.append(Double(now - sent) / 1e6) }
            }
        }
        // Keep the unfinished line, and an `id:` line whose `data:` line has not arrived yet.
        pending[s] = Array(line[(id != nil ? idLineStart : lineStart)...])
    }

    private static let idPrefix = Array("id: ".utf8)
    private static let dataPrefix = Array("data: ".utf8)
    private static let fromRevisionKey = Array("\"fromRevision\":".utf8)

    private static func starts(_ bytes: [UInt8], at start: Int, with prefix: [UInt8]) -> Bool {
        start + prefix.count <= bytes.count && (0..<prefix.count).allSatisfy { bytes[start + $0] == prefix[$0] }
    }

    private static func find(_ pattern: [UInt8], in bytes: [UInt8], from start: Int, to end: Int) -> Int? {
        var offset = start
        while offset + pattern.count <= end {
            if starts(bytes, at: offset, with: pattern) { return offset }
            offset += 1
        }
        return nil
    }

    private static func number(_ bytes: [UInt8], from start: Int) -> Int? {
        var value = 0, offset = start
        while offset < bytes.count, bytes[offset] >= UInt8(ascii: "0"), bytes[offset] <= UInt8(ascii: "9") {
            value = value * 10 + Int(bytes[offset] - UInt8(ascii: "0"))
            offset += 1
        }
        return offset > start ? value : nil
    }
}
