@testable import CatalogClient
import CatalogModel
import CatalogStore
import Foundation
import Hummingbird
import HummingbirdTesting
import HTTPTypes
import Testing

/// A stream that goes silent is dropped and opened again; an event the client cannot take in
/// does not make it ask for the same event forever.
@Suite struct LivenessTests {
    /// A "server" whose event stream answers each request with `answer(lastEventID)` and then
    /// holds the connection open without a byte more, with `Catalog-Keep-Alive: keepAlive`.
    static func holding(keepAlive: String, answer: @escaping @Sendable (String?) -> String, asked: HostileServerTests.Asked,
                        _ test: @escaping @Sendable (URL) async throws -> Void) async throws {
        let router = Router()
        let held = FaultProxy.OpenStreams()
        router.get("/catalogs/shelf/events") { request, _ in
            asked.once()
            let (stream, continuation) = AsyncThrowingStream<ByteBuffer, any Error>.makeStream()
            continuation.yield(ByteBuffer(string: answer(request.headers[HTTPField.Name("Last-Event-ID")!])))
            held.add(continuation)
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
        try await Self.holding(keepAlive: "0.05", answer: { _ in HostileServerTests.snapshot(at: 3) }, asked: asked) { url in
            try await HostileServerTests.followUntilAskedThrice(device, url, asked)
            #expect(try device.followedCatalogs().first?.serverRevision == 3)
        }
    }

    /// A change the client cannot read, sent again on every reconnection: after two tries the
    /// client asks for a fresh snapshot instead (before, it asked for the same change for ever).
    @Test func anEventThatCannotBeTakenInTwiceBringsAFreshSnapshot() async throws {
        let (device, _) = try FollowingTests.deviceStore()
        let asked = HostileServerTests.Asked()
        let snapshots = HostileServerTests.Asked()
        try await Self.holding(keepAlive: "0.05", answer: { lastEventID in
            guard lastEventID != nil else {
                snapshots.once()
                return HostileServerTests.snapshot(at: 3)
            }
            return "event: changes\nid: 4\ndata: {\"fromRevision\": 3, \"toRevision\": 4, \"sections\": [{\"id\": \n\n"
        }, asked: asked) { url in
            let client = try CatalogClient(store: device, server: url, retryingAfter: .milliseconds(5), atMost: .milliseconds(20))
            let task = Task { try await client.run(following: ["shelf"]) }
            try await FollowingTests.eventually("a second snapshot (\(snapshots.times) of \(asked.times))") { snapshots.times >= 2 }
            task.cancel()
            _ = await task.result
            #expect(try device.catalog(named: "shelf").sections == FollowingTests.shelves.sections)
        }
    }
}
