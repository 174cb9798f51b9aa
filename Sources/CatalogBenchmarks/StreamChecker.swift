import CatalogDiff
import Foundation

/// One event-stream subscriber of the cluster load test, on a thread of its own: follows
/// `GET /catalogs/{name}/events` and checks every event as a collection view would meet it.
///
/// While the load runs it only reads: each event is kept as it came, with the time it came, so
/// that the two cores the servers and the database share are not also spent checking. Once
/// stopped, ``check()`` goes through the events in order: it keeps the catalogue's shape
/// (section and item ids) from the first snapshot on, applies each changeset to it stage by
/// stage, and has the batch-update simulator check each against the shapes before and after;
/// each event must start at the revision the previous one reached (none missed or repeated).
/// When its server goes away it connects to the next port, resuming with `Last-Event-ID`.
final class StreamChecker: @unchecked Sendable {
    /// Checked changesets, by the revisions they join, shared by every subscriber of a run: the
    /// changeset from one revision to another is the same for all, so a subscriber that receives
    /// one already checked compares it and takes the shape after it.
    final class Verdicts: @unchecked Sendable {
        private let lock = NSLock()
        private var checked: [Pair: (text: String, after: SnapshotShape<String, String>?, violation: String?)] = [:]

        struct Pair: Hashable {
            let from: Int
            let to: Int
        }

        init() {}

        /// The shape after the changeset of JSON `text` from `before` at revision `from`, and
        /// what is wrong with it (nil when nothing): unreadable, not from `from` to `to`, or
        /// refused by the simulator. A text seen already is not read again.
        func check(_ text: String, from: Int, to: Int, before: SnapshotShape<String, String>) -> (SnapshotShape<String, String>?, String?) {
            let pair = Pair(from: from, to: to)
            if let known = lock.withLock({ checked[pair] }), known.text == text { return (known.after, known.violation) }
            let after: SnapshotShape<String, String>?
            let violation: String?
            if let changeset = try? JSONDecoder().decode(Changeset.self, from: Data(text.utf8)) {
                after = before.applyingItemMoves(changeset)
                if changeset.fromRevision != from || changeset.toRevision != to {
                    violation = "the changeset says \(changeset.fromRevision ?? -1)→\(changeset.toRevision ?? -1)"
                } else {
                    violation = after.flatMap { BatchUpdateSimulator.violations(of: changeset, from: before, to: $0).first.map { "\($0)" } }
                }
            } else {
                (after, violation) = (nil, "an unreadable changeset")
            }
            lock.withLock { checked[pair] = (text, after, violation) }
            return (after, violation)
        }
    }

    /// An event as it came: its kind, id and data.
    private struct Received {
        var kind: String
        var id: Int?
        var data: String
    }

    private let lock = NSLock()
    private let verdicts: Verdicts
    private let ports: [Int]
    private let catalog: String
    /// The events received, in order, until ``check()`` goes through them.
    private var received: [Received] = []
    private var shape = SnapshotShape<String, String>(sections: [], items: [])
    /// The revision the last event received reached (what a reconnection resumes from).
    private var revision: Int?
    /// The revision the checked events reached.
    private var checkedRevision: Int?
    private var problems: [String] = []
    private var events = 0
    private var reconnects = 0
    /// When the reconnection under way began (uptime nanoseconds), until its first event.
    private var reconnectBegan: UInt64?
    /// From each reconnection's start to the first event on the new stream, in milliseconds.
    private var resumptions: [Double] = []
    private var stopped = false
    /// When each revision reached this subscriber (uptime nanoseconds), if asked to keep them.
    private var arrivals: [Int: UInt64]?
    private var connection: BlockingHTTP?

    init(ports: [Int], catalog: String, verdicts: Verdicts, recordArrivals: Bool = false) {
        self.ports = ports
        self.verdicts = verdicts
        self.catalog = catalog
        arrivals = recordArrivals ? [:] : nil
    }

    struct Summary {
        var revision: Int?
        var events: Int
        var reconnects: Int
        /// From each reconnection's start to its first event, in milliseconds.
        var resumptions: [Double]
        var problems: [String]
        var shape: SnapshotShape<String, String>
        var arrivals: [Int: UInt64]
    }

    /// What the subscriber received and, after ``check()``, what the check found.
    var summary: Summary {
        lock.withLock { Summary(revision: checkedRevision, events: events, reconnects: reconnects, resumptions: resumptions, problems: problems, shape: shape, arrivals: arrivals ?? [:]) }
    }

    /// The revision of the last event received.
    var receivedRevision: Int? { lock.withLock { revision } }

    /// Starts following on a thread of its own.
    func start() {
        let thread = Thread { self.follow() }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Stops at the next event or keep-alive.
    func stop() {
        lock.withLock {
            stopped = true
            connection?.interrupt()
        }
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    private func problem(_ text: String) {
        lock.withLock { if problems.count < 20 { problems.append(text) } }
    }

    private func follow() {
        var portIndex = 0
        while !isStopped {
            let http = BlockingHTTP(port: ports[portIndex])
            lock.withLock { connection = http }
            do {
                var headers = ["Accept": "text/event-stream"]
                if let revision = lock.withLock({ revision }) { headers["Last-Event-ID"] = String(revision) }
                let head = try http.open("/catalogs/\(catalog)/events", headers: headers)
                guard head.status == 200 else { throw BlockingHTTP.Failure(description: "status \(head.status)") }
                var pending: [UInt8] = []
                var scanned = 0
                while !isStopped, let chunk = try http.nextChunk() {
                    pending += chunk
                    var start = 0
                    while let end = Self.eventEnd(pending, from: start, scanned: scanned) {
                        handle(String(decoding: pending[start..<end], as: UTF8.self))
                        start = end + 2
                        scanned = start
                    }
                    pending.removeFirst(start)
                    scanned = max(0, pending.count - 1)
                }
            } catch {
                if isStopped { break }
            }
            http.close()
            guard !isStopped else { break }
            // Its server went away: the next one, where the stream resumes.
            portIndex = (portIndex + 1) % ports.count
            lock.withLock { reconnects += 1 }
            Thread.sleep(forTimeInterval: 0.05)
            lock.withLock { if reconnectBegan == nil { reconnectBegan = DispatchTime.now().uptimeNanoseconds } }
        }
    }

    /// Where the first event from `start` ends (its blank line), if it is all there; bytes
    /// before `scanned` are known to hold no blank line.
    private static func eventEnd(_ bytes: [UInt8], from start: Int, scanned: Int) -> Int? {
        guard bytes.count >= 2 else { return nil }
        var i = max(start, scanned)
        while i < bytes.count - 1 {
            if bytes[i] == 10 && bytes[i + 1] == 10 { return i }
            i += 1
        }
        return nil
    }

    /// Keeps an event as it came, with its arrival; the revision it reaches is where a
    /// reconnection resumes.
    private func handle(_ text: String) {
        var kind = "message", id: Int?, data = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(":") { continue }
            if line.hasPrefix("event: ") { kind = String(line.dropFirst(7)) }
            if line.hasPrefix("id: ") { id = Int(line.dropFirst(4)) }
            if line.hasPrefix("data: ") { data += line.dropFirst(6) }
        }
        if kind == "message" && data.isEmpty { return }   // a keep-alive
        let now = DispatchTime.now().uptimeNanoseconds
        lock.withLock {
            events += 1
            received.append(Received(kind: kind, id: id, data: data))
            if let began = reconnectBegan {
                resumptions.append(Double(now - began) / 1e6)
                reconnectBegan = nil
            }
            if let id, kind == "snapshot" || kind == "reset" || kind == "changes" {
                if let count = arrivals?.count, count < 1_000_000 {
                    let from = kind == "changes" ? (revision ?? id - 1) + 1 : id
                    for r in min(from, id)...id { arrivals?[r] = now }
                }
                revision = id
            }
        }
    }

    /// Goes through the events received so far, in order, as a collection view would meet them
    /// (see the type's summary); what is wrong goes into the summary's problems.
    func check() {
        let events = lock.withLock { () -> [Received] in
            defer { received.removeAll() }
            return received
        }
        for event in events { check(event) }
    }

    private func check(_ event: Received) {
        let (kind, id, data) = (event.kind, event.id, event.data)
        switch kind {
        case "snapshot", "reset":
            guard let id, let shape = Self.shape(ofSnapshot: data) else { return problem("an unreadable \(kind)") }
            lock.withLock {
                if kind == "reset", let checkedRevision, id < checkedRevision { problems.append("a reset back to \(id) after \(checkedRevision)") }
                self.shape = shape
                checkedRevision = id
            }
        case "changes":
            guard let id else { return problem("changes without an id") }
            let (revision, before) = lock.withLock { (checkedRevision, shape) }
            guard let revision else { return problem("changes before any snapshot") }
            let (after, violation) = verdicts.check(data, from: revision, to: id, before: before)
            lock.withLock {
                guard let after else {
                    problems.append("changes \(revision)→\(id) do not apply to the shape before them")
                    return
                }
                if let violation { problems.append("changes \(revision)→\(id): \(violation)") }
                shape = after
                checkedRevision = id
            }
        case "deleted":
            problem("the catalogue was deleted")
        default:
            problem("an event of unknown kind \(kind)")
        }
    }

    /// Section and item ids of a snapshot document.
    static func shape(ofSnapshot text: String) -> SnapshotShape<String, String>? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              let sections = object["sections"] as? [[String: Any]] else { return nil }
        var shape: [(String, [String])] = []
        for section in sections {
            guard let id = section["id"] as? String else { return nil }
            let items = (section["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            shape.append((id, items))
        }
        return SnapshotShape(shape)
    }
}
