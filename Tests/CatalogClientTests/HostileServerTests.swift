import CatalogImport
import CatalogModel
import CatalogStore
import CatalogTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import CatalogClient

/// A client facing a server that answers nonsense keeps its copy and its outbox as they were,
/// never dies, and says what it could not read; its waits grow, with jitter, up to a cap.
@Suite struct HostileServerTests {
    /// How often the hostile server was asked for its event stream.
    final class Asked: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func once() { lock.withLock { count += 1 } }
        var times: Int { lock.withLock { count } }
    }

    /// `events` as a stream of many catalogues (`POST /events`) sends them for "shelf": each
    /// with its `catalog:` line (and so is what comes after the last blank line, cut short).
    static func labelled(_ events: String) -> String {
        guard !events.isEmpty else { return events }
        var result = "catalog: shelf\n"
        var rest = Substring(events)
        while let range = rest.range(of: "\n\n") {
            result += rest[..<range.upperBound]
            rest = rest[range.upperBound...]
            if !rest.isEmpty { result += "catalog: shelf\n" }
        }
        return result + rest
    }

    /// A "server" whose event stream sends `events` for "shelf" and whose writes, single or
    /// several, answer `writeAnswer`.
    static func hostile(events: String, writeAnswer: String, asked: Asked = Asked(), written: Asked = Asked(),
                        _ test: @escaping @Sendable (URL) async throws -> Void) async throws {
        let router = Router()
        router.post("/events") { _, _ in
            asked.once()
            return Response(status: .ok, headers: [.contentType: "text/event-stream"], body: ResponseBody(byteBuffer: ByteBuffer(string: labelled(events))))
        }
        for path in ["/catalogs/shelf/batches", "/catalogs/shelf/writes"] {
            router.post(RouterPath(path)) { _, _ in
                written.once()
                return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(string: writeAnswer)))
            }
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in try await test(URL(string: "http://127.0.0.1:\(try #require(client.port))")!) }
    }

    @Test(arguments: [
        "event: snapshot\nid: 3\ndata: {\"catalog\": \"shelf\", \"sections\": [{\"id\": 7}]}\n\n",
        "event: snapshot\nid: 3\ndata: not json at all\n\n",
        "event: changes\nid: 9\ndata: {\"fromRevision\": 8, \"toRevision\": 9, \"stages\": []}\n\n",
        "event: snapshot\nid: x\ndata: {}\n\nevent: reset\nid: 4\ndata: [1, 2\n\n",
    ])
    func nonsenseEventsLeaveTheCopyAlone(events: String) async throws {
        let (device, _) = try FollowingTests.deviceStore()
        let asked = Asked()
        try await Self.hostile(events: events, writeAnswer: "{}", asked: asked) { url in
            // Each connection after the first means the client read the nonsense, refused it and
            // came back: three of them, and it has written nothing.
            try await Self.followUntilAskedThrice(device, url, asked)
            #expect(throws: StoreError.unknownCatalog("shelf")) { try device.catalog(named: "shelf") }
            #expect(try device.followedCatalogs().first?.serverRevision == 0)
        }
    }

    /// Follows the "shelf" of `url` into `device` until the server was asked for its stream three
    /// times: each connection after the first means the client refused what it read and came back.
    static func followUntilAskedThrice(_ device: CatalogStore, _ url: URL, _ asked: Asked, maxEventBytes: Int = 64 << 20) async throws {
        let client = try CatalogClient(store: device, server: url, retryingAfter: .milliseconds(10), atMost: .milliseconds(50),
                                       maxEventBytes: maxEventBytes)
        let task = Task { try await client.run(following: ["shelf"]) }
        try await waitUntil("three connections (\(asked.times))") { asked.times >= 3 }
        task.cancel()
        _ = await task.result
    }

    /// A snapshot of ``FollowingTests/shelves`` at `revision`, as the server sends it.
    static func snapshot(at revision: Int) -> String {
        var catalog = FollowingTests.shelves
        catalog.revision = revision
        let json = String(decoding: CatalogExporter.json(catalog, includeRevision: true, pretty: false), as: UTF8.self)
        return "event: snapshot\nid: \(revision)\ndata: \(json)\n\n"
    }

    /// Ids that overflow, are negative or go back, after a good snapshot: the client never traps,
    /// drops the stream, takes a fresh snapshot, and its copy stays whole.
    @Test(arguments: [
        "event: changes\nid: -9223372036854775808\ndata: {\"fromRevision\": 5, \"toRevision\": 6, \"stages\": [], \"sections\": []}\n\n",
        "event: changes\nid: 99999999999999999999999\ndata: {\"fromRevision\": 5, \"toRevision\": 6, \"stages\": [], \"sections\": []}\n\n",
        "event: changes\nid: 9223372036854775807\ndata: {\"fromRevision\": -9223372036854775808, \"stages\": [], \"sections\": []}\n\n",
        "event: changes\nid: 3\ndata: {\"fromRevision\": 5, \"toRevision\": 3, \"stages\": [], \"sections\": []}\n\n",
        "event: snapshot\nid: -1\ndata: {}\n\n",
    ])
    func hostileNumbersNeverTrap(after events: String) async throws {
        let (device, _) = try FollowingTests.deviceStore()
        let asked = Asked()
        try await Self.hostile(events: Self.snapshot(at: 5) + events, writeAnswer: "{}", asked: asked) { url in
            try await Self.followUntilAskedThrice(device, url, asked)
            #expect(try device.catalog(named: "shelf").sections == FollowingTests.shelves.sections)
            #expect(try device.followedCatalogs().first?.serverRevision == 5)
            try device.checkIntegrity()
        }
    }

    /// A server that sends one line that never ends (or one event of endless data lines): the
    /// client reads at most its bound, drops the stream and tries again, its copy untouched.
    @Test(arguments: [false, true])
    func anEndlessLineIsCutAtTheBound(manyLines: Bool) async throws {
        let (device, _) = try FollowingTests.deviceStore()
        let asked = Asked()
        let router = Router()
        let chunk = ByteBuffer(string: manyLines ? String(repeating: "data: 0123456789abcdef\n", count: 1 << 12) : String(repeating: "x", count: 1 << 16))
        router.post("/events") { _, _ in
            asked.once()
            return Response(status: .ok, headers: [.contentType: "text/event-stream"], body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: "catalog: shelf\nevent: snapshot\nid: 1\n" + (manyLines ? "" : "data: ")))
                // 64 MiB at most per connection, so that a client that never stops ends the test.
                for _ in 0..<((64 << 20) / chunk.readableBytes) { try await writer.write(chunk) }
                try await writer.finish(nil)
            })
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let url = URL(string: "http://127.0.0.1:\(try #require(client.port))")!
            try await Self.followUntilAskedThrice(device, url, asked, maxEventBytes: 1 << 20)
            #expect(throws: StoreError.unknownCatalog("shelf")) { try device.catalog(named: "shelf") }
        }
    }

    /// A 200 whose body is not an event stream (a proxy's HTML page that happens to hold event
    /// lines) is not taken in: the client asks again and its copy stays as it was.
    @Test func anAnswerThatIsNotAnEventStreamIsNotRead() async throws {
        let (device, _) = try FollowingTests.deviceStore()
        let asked = Asked()
        let router = Router()
        let page = ByteBuffer(string: Self.labelled(Self.snapshot(at: 3)))
        router.post("/events") { _, _ in
            asked.once()
            return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: ResponseBody(byteBuffer: page))
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let url = URL(string: "http://127.0.0.1:\(try #require(client.port))")!
            try await Self.followUntilAskedThrice(device, url, asked)
            #expect(throws: StoreError.unknownCatalog("shelf")) { try device.catalog(named: "shelf") }
        }
    }

    @Test func theParserKeepsToItsBound() throws {
        var parser = ServerSentEventParser(limit: 100)
        #expect(try parser.feed(Array("data: \(String(repeating: "a", count: 90))\n\n".utf8)).count == 1)
        #expect(throws: ServerSentEventParser.TooLarge.self) { try parser.feed(Array(repeating: UInt8(ascii: "b"), count: 101)) }
        var lines = ServerSentEventParser(limit: 100)
        #expect(throws: ServerSentEventParser.TooLarge.self) {
            for _ in 0..<20 { _ = try lines.feed(Array("data: 0123456789\n".utf8)) }
        }
        for id in ["-1", "+3", "1e3", "99999999999999999999", " 4", ""] {
            #expect(throws: ServerSentEventParser.InvalidID.self, "\(id)") { try ServerSentEventParser.Event(id: id).revision() }
        }
        #expect(try ServerSentEventParser.Event(id: "9223372036854775807").revision() == Int.max)
    }

    /// A write answered with something that is not CatalogKit's answer (an answer cut short on
    /// the way, another program on the port): the answer is lost, not given — the write stays
    /// queued and is sent again after a growing wait, never taken as applied or rejected, and the
    /// client goes on (a proxy that mangles one answer does not stop a device's sync) — alone and
    /// several.
    @Test(arguments: [1, 3])
    func aWriteAnsweredWithNonsenseIsSentAgainAndKept(queued: Int) async throws {
        let (device, _) = try FollowingTests.deviceStore()
        try device.replace(FollowingTests.shelves)
        _ = try device.follow("shelf", server: "http://127.0.0.1:1")   // the URL checked below differs: a fresh store per server
        let (other, _) = try FollowingTests.deviceStore()
        try other.replace(FollowingTests.shelves)
        let written = Asked()
        try await Self.hostile(events: ": nothing\n\n", writeAnswer: "{\"hello\": 1}", written: written) { url in
            _ = try other.follow("shelf", server: url.absoluteString)
            for n in 0..<queued { try await other.move(item: "b0", toSection: n % 2 == 0 ? "c" : "b", in: "shelf") }
            let client = try CatalogClient(store: other, server: url, retryingAfter: .milliseconds(10), atMost: .milliseconds(50))
            let task = Task { try await client.run(following: ["shelf"]) }
            try await waitUntil("three requests of the writes") { written.times >= 3 }
            #expect(try other.outbox().map(\.state) == Array(repeating: .pending, count: queued))
            task.cancel()
            _ = await task.result
            // The database says which server each catalogue follows.
            let refused = try CatalogClient(store: device, server: url)
            await #expect(throws: CatalogClientError.followsAnotherServer(catalog: "shelf", server: "http://127.0.0.1:1")) {
                try await refused.run(following: ["shelf"])
            }
        }
    }

    /// An out-of-sequence answer is read by the number it expects: any other number than the
    /// write's means the server's record of the id is not this device's — a copy of the database
    /// went further (above), or the server lost the record (below) — and the waiting writes are
    /// numbered afresh under a new id; a number below 1 or the write's own is tried again later.
    /// Never is a write taken as "applied long ago", nor a number filled with an empty write.
    @Test func anOutOfSequenceAnswerIsReadByTheNumberItExpects() async throws {
        let (device, _) = try FollowingTests.deviceStore()
        try device.replace(FollowingTests.shelves)
        _ = try device.follow("shelf", server: "http://127.0.0.1:1")
        for section in ["c", "b", "c"] { try await device.move(item: "b0", toSection: section, in: "shelf") }
        let entry = try #require(try device.outbox().last)
        #expect(entry.sequence == 3 && entry.number == 3)
        let server = try ServerRequests(server: URL(string: "http://127.0.0.1:1")!, token: nil, transport: AsyncHTTPClientTransport())
        let sender = OutboxSender(store: device, server: server, log: .discarding, replicas: [:], changed: {}, report: { _ in })
        func expecting(_ number: Int) -> ServerRequests.Answer {
            ServerRequests.Answer(status: 409, document: ["type": "https://catalogkit.dev/problems/out-of-sequence", "expected": number])
        }
        for number in [5, 1] {
            #expect(throws: OutboxSender.StrangeNumbers.self, "expected \(number)") { try sender.outcome(of: expecting(number), for: entry) }
        }
        for number in [0, -4, 3] {
            #expect(throws: ServerRequests.Retry.self, "expected \(number)") { try sender.outcome(of: expecting(number), for: entry) }
        }
        // Numbered afresh: a new id, 1, 2, 3 in the order made.
        let before = try #require(entry.client)
        let renamed = try device.renumber("shelf")
        #expect(renamed != before)
        #expect(try device.outbox().map(\.number) == [1, 2, 3] && device.outbox().allSatisfy { $0.client == renamed })
    }

    @Test func waitsDoubleUpToTheCapWithJitter() {
        var random = SystemRandomNumberGenerator()
        var backoff = Backoff(initial: .milliseconds(100), maximum: .seconds(1))
        for cap in [100, 200, 400, 800, 1000, 1000].map({ Duration.milliseconds($0) }) {
            // Each wait is a random half to whole of the cap: many tries stay inside and spread.
            let waits = (0..<200).map { _ in
                var copy = backoff
                return copy.next(using: &random)
            }
            #expect(waits.allSatisfy { $0 >= cap * 0.5 && $0 <= cap }, "\(cap)")
            #expect(waits.max()! - waits.min()! > cap * 0.2, "jitter at \(cap)")
            _ = backoff.next(using: &random)
        }
        backoff.reset()
        #expect(backoff.next(using: &random) <= .milliseconds(100))
        #expect(throws: CatalogClientError.invalidServer("ftp://x")) { try CatalogClient(store: try CatalogStore.inMemory(), server: URL(string: "ftp://x")!) }
    }
}
