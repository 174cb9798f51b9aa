@testable import CatalogServer
import CatalogTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Work done for one answer stops when its client hangs up; work other clients wait for goes on.
@Suite struct AbandonedRequestTests {
    /// A layout waiting for the layout threads leaves the line when its client closes the
    /// connection, and is never drawn (before, it waited its turn and was drawn for nobody: a
    /// loop of such requests kept the layout threads busy for clients long gone).
    @Test(.timeLimit(.minutes(5))) func aLayoutWhoseClientLeftIsNotDrawn() async throws {
        let limiter = WorkLimiter(permits: 1)
        var configuration = ServerConfiguration(port: 0)
        configuration.layoutWork = limiter
        try await ServerTests.withServer(configuration) { client, _ in
            let port = try #require(client.port)
            let (held, holding) = AsyncStream<Void>.makeStream()
            let (gate, opening) = AsyncStream<Void>.makeStream()
            let holder = Task {
                try await limiter.withPermit {
                    holding.yield()
                    for await _ in gate {}
                }
            }
            for await _ in held { break }

            let config = HardeningTests.query(#"{"style":"flow"}"#)
            let leaving = try RawConnection(port: port)
            #expect(leaving.send("GET /catalogs/shelf/layout?config=\(config)&width=390&height=844 HTTP/1.1\r\nHost: localhost\r\n\r\n"))
            #expect(await eventually { limiter.waitingCount == 1 }, "the layout never queued")
            leaving.close()
            #expect(await eventually { limiter.waitingCount == 0 }, "the abandoned layout is still waiting for the layout threads")

            opening.finish()
            try await holder.value
            // The server answers the next client, and counted the abandoned request.
            try await client.execute(uri: "/catalogs/shelf/layout?config=\(config)&width=390&height=844", method: .get) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: "/metrics", method: .get) { response in
                let text = String(buffer: response.body)
                #expect(text.split(separator: "\n").contains { $0.contains("layout") && $0.contains("status=\"499\"") && !$0.hasPrefix("#") },
                        "no 499 counted for the layout: \(text)")
            }
        }
    }
}

/// ``RevisionCache``'s shared computations under cancellation, against what each request should
/// see.
@Suite struct RevisionCacheCancellationTests {
    /// One of two requests sharing a computation goes: the other still gets the value, made once.
    @Test func aComputationGoesOnWhileOneRequestWaits() async throws {
        let cache = RevisionCache<Int>(limit: 4, budget: 100, cost: { _ in 1 })
        let (gate, opening) = AsyncStream<Void>.makeStream()
        let made = Tally()
        let (started, starting) = AsyncStream<Void>.makeStream()
        let make: @Sendable () async throws -> Int = {
            made.add()
            starting.yield()
            for await _ in gate {}
            try Task.checkCancellation()
            return 42
        }
        let first = Task { try await cache.value(for: "k", revision: 1, make: make) }
        for await _ in started { break }
        let second = Task { try await cache.value(for: "k", revision: 1, make: make) }
        // The second has joined once it is waiting; cancel the first, then let the work finish.
        #expect(await eventually { cache.waiters(for: "k") == 2 })
        first.cancel()
        opening.finish()
        #expect(try await second.value == 42)
        #expect(made.value == 1)
        #expect(try await cache.value(for: "k", revision: 1, make: make) == 42, "the value is kept")
        #expect(made.value == 1)
    }

    /// Every request goes: the computation is cancelled and forgotten, and the next request
    /// computes afresh instead of inheriting the cancellation.
    @Test func aComputationNobodyWaitsForIsCancelled() async throws {
        let cache = RevisionCache<Int>(limit: 4, budget: 100, cost: { _ in 1 })
        let (started, starting) = AsyncStream<Void>.makeStream()
        let cancelled = Tally()
        let make: @Sendable () async throws -> Int = {
            starting.yield()
            // Waits until cancelled.
            let (never, _) = AsyncStream<Void>.makeStream()
            for await _ in never {}
            cancelled.add()
            throw CancellationError()
        }
        let requests = (0..<3).map { _ in Task { try await cache.value(for: "k", revision: 1, make: make) } }
        for await _ in started { break }
        #expect(await eventually { cache.waiters(for: "k") == 3 })
        for request in requests { request.cancel() }
        for request in requests { await #expect(throws: CancellationError.self) { try await request.value } }
        #expect(await eventually { cancelled.value == 1 })
        #expect(cache.count == 0)
        #expect(try await cache.value(for: "k", revision: 1) { 7 } == 7)
    }
}

/// A count several tasks add to.
final class Tally: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
