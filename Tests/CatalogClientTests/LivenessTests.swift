import CatalogModel
import CatalogStore
import CatalogTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import CatalogClient

/// A stream that goes silent is dropped and opened again; an event the client cannot take in
/// does not make it ask for the same event forever.
@Suite struct LivenessTests {
    /// A "server" whose event stream answers each request with `answer(since)` for "shelf" (the
    /// revision the request resumes from) and then holds the connection open without a byte
    /// more (or, not `holding`, ends it), with `Catalog-Keep-Alive: keepAlive`.
    static func holding(keepAlive: String, holding: Bool = true, answer: @escaping @Sendable (String?) -> String, asked: HostileServerTests.Asked,
                        _ test: @escaping @Sendable (URL) async throws -> Void) async throws {
        let router = Router()
        let held = FaultProxy.OpenStreams()
        router.post("/events") { request, _ in
            asked.once()
            var request = request
            let body = try await request.collectBody(upTo: 1 << 20)
            let catalogs = (try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any])?["catalogs"] as? [[String: Any]]
            let since = (catalogs?.first?["since"] as? Int).map(String.init)
            let (stream, continuation) = AsyncThrowingStream<ByteBuffer, any Error>.makeStream()
            continuation.yield(ByteBuffer(string: HostileServerTests.labelled(answer(since))))
            if holding { held.add(continuation) } else { continuation.finish() }
            return Response(status: .ok, headers: [.contentType: "text/event-stream", HTTPField.Name("Catalog-Keep-Alive")!: keepAlive],
                            body: ResponseBody(asyncSequence: stream))
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            defer { held.finishAll() }
            try await test(URL(string: "http://127.0.0.1:\(try #require(client.port))")!)
        }
    }

    /// A connection that stays open and silent past three of the server's keep-alive intervals
    /// is dropped and opened again (before, the client waited on it for ever, its copy going
    /// stale without a word).
    @Test func aSilentStreamIsDroppedAndOpenedAgain() async throws {
        let (device, _) = try FollowingTests.deviceStore()
        let asked = HostileServerTests.Asked()
        // The snapshot comes with the answer's head; silence is counted from then. 0.2 s × 3 is
        // far past a loaded machine's delay between the two, and a drop before the snapshot is
        // taken in is only one more connection: the test waits for the snapshot and the reconnections.
        try await Self.holding(keepAlive: "0.2", answer: { _ in HostileServerTests.snapshot(at: 3) }, asked: asked) { url in
            let client = try CatalogClient(store: device, server: url, retryingAfter: .milliseconds(10), atMost: .milliseconds(50))
            let task = Task { try await client.run(following: ["shelf"]) }
            try await waitUntil("the snapshot and three connections (\(asked.times))") {
                try asked.times >= 3 && device.followedCatalogs().first?.serverRevision == 3
            }
            task.cancel()
            _ = await task.result
        }
    }

    /// A change the client cannot read, sent again on every reconnection: after two tries the
    /// client asks for a fresh snapshot instead (before, it asked for the same change for ever).
    @Test func anEventThatCannotBeTakenInTwiceBringsAFreshSnapshot() async throws {
        let (device, _) = try FollowingTests.deviceStore()
        let asked = HostileServerTests.Asked()
        let snapshots = HostileServerTests.Asked()
        // Each answer ends its connection, so only the client's own choice brings a snapshot
        // (no silence is ever long enough to drop one).
        try await Self.holding(keepAlive: "15", holding: false, answer: { since in
            guard since != nil else {
                snapshots.once()
                return HostileServerTests.snapshot(at: 3)
            }
            return "event: changes\nid: 4\ndata: {\"fromRevision\": 3, \"toRevision\": 4, \"sections\": [{\"id\": \n\n"
        }, asked: asked) { url in
            let client = try CatalogClient(store: device, server: url, retryingAfter: .milliseconds(5), atMost: .milliseconds(20))
            let task = Task { try await client.run(following: ["shelf"]) }
            try await waitUntil("a second snapshot (\(snapshots.times) of \(asked.times))") { snapshots.times >= 2 }
            task.cancel()
            _ = await task.result
            #expect(try device.catalog(named: "shelf").sections == FollowingTests.shelves.sections)
        }
    }
}
