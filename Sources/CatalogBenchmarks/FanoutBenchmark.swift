import CBenchmarkSupport
import CatalogModel
import CatalogStore
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `catalog-bench live`'s event-stream case: `subscribers` clients follow one catalogue's
/// `GET /catalogs/{name}/events` while a writer moves a book, one move at a time, asking for
/// `movesPerSecond` a second for `seconds` seconds.
///
/// The server is `catalog serve` in a process of its own (the binary beside this one), so what
/// is measured is the server as users run it, and the clients' work is not counted as its own.
/// The subscribers are plain sockets read by one thread of this process (with `epoll` on Linux,
/// `poll` elsewhere); the writer is one keep-alive connection that sends the next move once the
/// last is answered (and at once when it is behind). Per run: the time from sending each move
/// to each subscriber's reading of that revision's event (p50, p99 over every event of every
/// subscriber), the moves the writer got through, and how busy the reader was (a reader busy
/// most of the time measures its own backlog, and the result says so). Every subscriber must
/// see every revision in order (a coalesced event covers the revisions since its
/// `fromRevision`). The case runs `runs` times and reports the median, with the least and most;
/// the baseline is one subscriber, measured the same way in the same run.
///
/// With `views` > 0 the subscribers follow that many distinct views of the catalogue
/// (docs/Views.md; subscriber *k* the view *k* mod `views`, each `where title != "…"` of its own,
/// stored order, so that every move changes every view), and the catalogue holds `items` books.
/// Each run also reads the server's CPU time from `/proc` (Linux): its CPU per event delivered to
/// a subscriber.
package struct FanoutBenchmark: Sendable {
    package var subscribers: Int
    package var movesPerSecond: Int
    package var seconds: Double
    package var runs: Int
    /// Books in the catalogue (in 10 shelves).
    package var items = 1_000
    /// Distinct views the subscribers follow; 0: the catalogue's own stream.
    package var views = 0
    /// `catalog`, to run as the server; by default the binary beside this process's own.
    package var serverExecutable: URL?

    package init(subscribers: Int = 1_000, movesPerSecond: Int = 100, seconds: Double = 30, runs: Int = 5,
                serverExecutable: URL? = nil) {
        self.subscribers = subscribers
        self.movesPerSecond = movesPerSecond
        self.seconds = seconds
        self.runs = runs
        self.serverExecutable = serverExecutable
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
        /// The share of its time the reader spent reading and parsing (from subscribing to the end).
        var readerBusy: Double
        /// The server's CPU time during the run, in milliseconds (nil where `/proc` is missing).
        var serverCPU: Double?
    }

    package func run(log: @escaping @Sendable (String) -> Void = { _ in }) throws -> [BenchmarkResult] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-bench-fanout-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Every subscriber's socket in this process.
        var limit = rlimit()
        getrlimit(Self.fileLimit, &limit)
        limit.rlim_cur = max(limit.rlim_cur, min(limit.rlim_max, rlim_t(2 * subscribers + 256)))
        setrlimit(Self.fileLimit, &limit)

        let database = folder.appendingPathComponent("fanout.sqlite").path
        var catalog = Catalog.generated(name: "shelf", items: items, sections: 10, kind: .bookshelf, seed: 9)
        for s in catalog.sections.indices { catalog.sections[s].capacity = max(1_000, items) }
        try CatalogStore(path: database).replace(catalog)
        let executable = serverExecutable
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("catalog")
        let server = try ServerProcess.fanout(executable: executable, database: database, folder: folder, subscribers: subscribers)
        defer { server.stop() }
        let book = catalog.sections[0].items[0].id, shelf = catalog.sections[0].id
        log("live: event stream, 1 subscriber, \(movesPerSecond) moves/s asked for \(Int(seconds)) s")
        let one = try measure(server: server, subscribers: 1, book: book, shelf: shelf)
        var many: [Outcome] = []
        for run in 1...runs {
            log("live: event stream, \(subscribers) subscribers, \(movesPerSecond) moves/s asked for \(Int(seconds)) s (run \(run) of \(runs))")
            many.append(try measure(server: server, subscribers: subscribers, book: book, shelf: shelf))
        }
        for outcome in many + [one] where outcome.outOfOrder > 0 || outcome.behind > 0 {
            throw FanoutError.missedRevisions(outOfOrder: outcome.outOfOrder, behind: outcome.behind)
        }
        let streams = views > 0 ? "\(views) views of \(items.abbreviated) books" : "\(items.abbreviated) books"
        let label = "event stream, \(subscribers.abbreviated) subscribers on \(streams), one-at-a-time writer asking \(movesPerSecond)/s"
        func spread(_ values: [Double], _ unit: String) -> String {
            let sorted = values.sorted()
            return "median of \(values.count), min \(Self.format(sorted.first ?? .nan))\(unit), max \(Self.format(sorted.last ?? .nan))\(unit)"
        }
        let busy = many.map(\.readerBusy).max() ?? 0
        let readerNote = busy > 0.8 ? "; the reader was busy \(Int(busy * 100)) % of a run: it measured its own backlog" : ""
        var results = [("p50", 0.5), ("p99", 0.99)].map { name, p in
            let values = many.map { Clock.percentile($0.latencies, p) }
            return BenchmarkResult(suite: "live", name: "\(label): move → event \(name) (\(spread(values, " ms"))\(readerNote))",
                                   medianMS: Clock.median(values), baseline: "1 subscriber \(name)",
                                   baselineMedianMS: Clock.percentile(one.latencies, p), items: 1)
        }
        // Moves the writer got through, as the time each took (the run's length over its moves):
        // against the one-subscriber run's.
        let perMove = many.map { seconds * 1000 / Double(max(1, $0.moves)) }
        results.append(BenchmarkResult(
            suite: "live",
            name: "\(label): time a move took the writer (\(spread(many.map { Double($0.moves) / seconds }, " moves/s")))",
            medianMS: Clock.median(perMove), baseline: "1 subscriber",
            baselineMedianMS: seconds * 1000 / Double(max(1, one.moves)), items: 1))
        // The server's CPU per event a subscriber received, in microseconds (shown as ms).
        let perEvent = many.compactMap { outcome in outcome.serverCPU.map { $0 * 1000 / Double(max(1, outcome.events)) } }
        if !perEvent.isEmpty, let oneCPU = one.serverCPU {
            results.append(BenchmarkResult(
                suite: "live", name: "\(label): server CPU per event delivered, µs (\(spread(perEvent, " µs")))",
                medianMS: Clock.median(perEvent) / 1000, baseline: "1 subscriber",
                baselineMedianMS: oneCPU / Double(max(1, one.events)), items: 1))
        }
        return results
    }

    static func format(_ value: Double) -> String {
        String(format: value >= 100 ? "%.0f" : value >= 10 ? "%.1f" : "%.2f", value)
    }

    private static let fileLimit = {
        #if canImport(Glibc)
        __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        RLIMIT_NOFILE
        #endif
    }()

    /// Subscribes `subscribers` sockets from the current revision, then moves `book` back and
    /// forth within `shelf`, one move at a time, for `seconds`, and reads every stream meanwhile.
    private func measure(server: ServerProcess, subscribers: Int, book: String, shelf: String) throws -> Outcome {
        let writer = try MoveWriter(port: server.port)
        let start = try writer.move(book: book, toShelf: shelf, index: 0)
        let queries = (0..<max(1, views)).map { k in
            views == 0 ? "" : "&where=" + "title != \"view \(k)\"".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        }
        let reader = try StreamReader(port: server.port, subscribers: subscribers, since: start, queries: queries)
        let thread = Thread { reader.readUntilStopped() }
        thread.start()
        // Every stream answered before the first move.
        let connectDeadline = Date().addingTimeInterval(30)
        while reader.answeredCount < subscribers, Date() < connectDeadline { Thread.sleep(forTimeInterval: 0.02) }
        if let refusal = reader.refusal {
            reader.stop()
            while !reader.finished { Thread.sleep(forTimeInterval: 0.005) }
            throw FanoutError.connect("\(reader.refusedCount) subscribers were refused: \(refusal)")
        }

        let interval = 1.0 / Double(movesPerSecond)
        let cpuBefore = Self.cpuMilliseconds(of: server.process.processIdentifier)
        let began = DispatchTime.now().uptimeNanoseconds
        let end = began + UInt64(seconds * 1e9)
        var revision = start
        var moves = 0
        while DispatchTime.now().uptimeNanoseconds < end {
            reader.willWrite(revision: revision + 1, at: DispatchTime.now().uptimeNanoseconds)
            revision = try writer.move(book: book, toShelf: shelf, index: moves % 2 == 0 ? 1 : 0)
            moves += 1
            let next = began + UInt64(Double(moves) * interval * 1e9)
            let now = DispatchTime.now().uptimeNanoseconds
            if next > now { Thread.sleep(forTimeInterval: Double(next - now) / 1e9) }
        }
        let catchUp = Date().addingTimeInterval(10)
        while reader.subscribersAt(revision) < subscribers, Date() < catchUp { Thread.sleep(forTimeInterval: 0.02) }
        let cpuAfter = Self.cpuMilliseconds(of: server.process.processIdentifier)
        reader.stop()
        while !reader.finished { Thread.sleep(forTimeInterval: 0.005) }
        // One more move, so that the server writes to the streams just closed, finds them
        // gone and frees their places before the next run subscribes.
        _ = try writer.move(book: book, toShelf: shelf, index: moves % 2 == 0 ? 1 : 0)
        Thread.sleep(forTimeInterval: 0.5)
        var outcome = reader.outcome(moves: moves, last: revision)
        if let cpuBefore, let cpuAfter { outcome.serverCPU = cpuAfter - cpuBefore }
        return outcome
    }

    /// A process's user and system CPU time in milliseconds, from `/proc/PID/stat` (nil elsewhere).
    static func cpuMilliseconds(of pid: Int32) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        // After the command's closing parenthesis: state is field 3, utime 14, stime 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return (user + system) / ticks * 1000
    }
}

extension ServerProcess {
    /// `catalog serve` on a database file with room for `subscribers` streams from this one
    /// address, twice over: a run's streams are open while the last run's are still being closed.
    static func fanout(executable: URL, database: String, folder: URL, subscribers: Int) throws -> ServerProcess {
        try ServerProcess(executable: executable,
                          arguments: ["--db", database, "--log-level", "warning",
                                      "--max-connections", "\(4 * subscribers + 256)", "--max-event-streams", "\(3 * subscribers + 128)",
                                      "--max-event-streams-per-client", "\(3 * subscribers + 128)"],
                          folder: folder)
    }
}

/// One keep-alive connection that posts a move and waits for its answer.
final class MoveWriter {
    private let fd: Int32
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)

    init(port: Int) throws {
        fd = try Self.open(port: port)
    }

    deinit { close(fd) }

    /// A TCP connection to 127.0.0.1:`port`, without Nagle's delay (the reader's sockets too).
    static func open(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, StreamReader.streamType, 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, connected == 0 else { throw FanoutError.connect(String(cString: strerror(errno))) }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return fd
    }

    /// Moves `book` to `index` of `shelf`; the revision the answer names.
    func move(book: String, toShelf shelf: String, index: Int) throws -> Int {
        let body = #"{"item": "\#(book)", "toSection": "\#(shelf)", "index": \#(index)}"#
        let request = Array("POST /catalogs/shelf/moves HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == request.count else {
            throw FanoutError.connect("the move could not be sent")
        }
        var received: [UInt8] = []
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw FanoutError.connect("the server closed the writer's connection") }
            received += buffer[0..<count]
            guard let head = received.firstRange(of: Array("\r\n\r\n".utf8)) else { continue }
            let headText = String(decoding: received[..<head.lowerBound], as: UTF8.self).lowercased()
            let length = headText.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            guard received.count >= head.upperBound + length else { continue }
            let answer = String(decoding: received[head.upperBound..<head.upperBound + length], as: UTF8.self)
            guard headText.hasPrefix("http/1.1 200"),
                  let revision = answer.range(of: #""revision":"#).flatMap({ range in
                      Int(answer[range.upperBound...].prefix { $0.isNumber })
                  }) else {
                throw FanoutError.connect("the move was refused: \(headText.prefix(40)) \(answer.prefix(200))")
            }
            return revision
        }
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
    /// Subscribers answered with something other than 200, and the first such answer.
    private(set) var refusedCount = 0
    private var firstRefusal: String?
    private var sentAt: [Int: UInt64] = [:]
    private var latencies: [Double] = []
    private var events = 0
    private var outOfOrder = 0
    private var stopping = false
    private(set) var finished = false
    /// Time spent reading and parsing, and the span of the reading loop (the reader thread's
    /// own: read once `finished` is set).
    private var busy: UInt64 = 0
    private var span: UInt64 = 0

    /// `queries[k % queries.count]` is appended to subscriber *k*'s request (a view's parameters).
    init(port: Int, subscribers: Int, since revision: Int, queries: [String] = [""]) throws {
        fds = []
        for k in 0..<subscribers {
            let fd = try MoveWriter.open(port: port)
            let query = queries[k % queries.count]
            let request = Array("GET /catalogs/shelf/events?since=\(revision)\(query) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
            _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0))
        }
        pending = Array(repeating: [], count: subscribers)
        last = Array(repeating: revision, count: subscribers)
        answered = Array(repeating: false, count: subscribers)
    }

    static let streamType = {
        #if canImport(Glibc)
        Int32(SOCK_STREAM.rawValue)
        #else
        SOCK_STREAM
        #endif
    }()

    var answeredCount: Int { lock.withLock { answered.filter { $0 }.count } }

    var refusal: String? { lock.withLock { firstRefusal } }

    func subscribersAt(_ revision: Int) -> Int { lock.withLock { last.filter { $0 >= revision }.count } }

    func willWrite(revision: Int, at time: UInt64) { lock.withLock { sentAt[revision] = time } }

    func stop() { lock.withLock { stopping = true } }

    func outcome(moves: Int, last revision: Int) -> FanoutBenchmark.Outcome {
        lock.withLock {
            return FanoutBenchmark.Outcome(latencies: latencies, moves: moves, events: events, outOfOrder: outOfOrder,
                                           behind: last.filter { $0 != revision }.count,
                                           readerBusy: span > 0 ? Double(busy) / Double(span) : 0, serverCPU: nil)
        }
    }

    func readUntilStopped() {
        let started = DispatchTime.now().uptimeNanoseconds
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        func read(_ s: Int) {
            let began = DispatchTime.now().uptimeNanoseconds
            let count = buffer.withUnsafeMutableBytes { recv(fds[s].fd, $0.baseAddress, $0.count, 0) }
            // Timed after the read: what it returned may have arrived after the wait did.
            if count > 0 { take(buffer[0..<count], subscriber: s, at: DispatchTime.now().uptimeNanoseconds) }
            busy += DispatchTime.now().uptimeNanoseconds - began
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
        span = DispatchTime.now().uptimeNanoseconds - started
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
        if !answered[s], line.count >= 12, !Self.starts(line, at: 0, with: Self.okStatus) {
            refusedCount += 1
            if firstRefusal == nil { firstRefusal = String(decoding: line.prefix(200), as: UTF8.self) }
        }
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

    private static let okStatus = Array("HTTP/1.1 200".utf8)
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
