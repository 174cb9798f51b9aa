import CatalogPostgres
import CatalogServer
import CatalogStore
import CatalogTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// `GET /metrics`: what a Prometheus scrape reads after real requests, on both backends.
@Suite struct MetricsTests {
    /// The samples of an exposition, by their name with labels as written
    /// (`catalog_writes_total{kind="move",outcome="committed"}`).
    static func samples(_ text: String) -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            samples[String(line[..<space])] = value
        }
        return samples
    }

    static func scrape(_ client: any TestClientProtocol, token: String? = nil) async throws -> [String: Double] {
        var headers = HTTPFields()
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await client.execute(uri: "/metrics", method: .get, headers: headers) { response in
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            return samples(String(buffer: response.body))
        }
    }

    @Test(arguments: Backend.available)
    func requestsWritesAndStreamsAreCounted(backend: Backend) async throws {
        try await ServerTests.withServer(on: backend) { client, store in
            #expect(try await TwoInstanceTests.move(client, "b0", to: "c") == 200)
            #expect(try await TwoInstanceTests.move(client, "b0", to: "a") == 409)   // a is full
            try await client.execute(uri: "/catalogs/shelf", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/catalogs/nowhere", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/no/such/route", method: .get) { #expect($0.status == .notFound) }
            let stream = try RawConnection(port: try #require(client.port))
            stream.openEventStream("/catalogs/shelf/events")
            #expect(await stream.awaitEvents(1).first?.event == "snapshot")

            let samples = try await Self.scrape(client)
            let moves = #"route="/catalogs/{name}/moves",method="POST""#
            #expect(samples[#"catalog_http_requests_total{\#(moves),status="200"}"#] == 1)
            #expect(samples[#"catalog_http_requests_total{\#(moves),status="409"}"#] == 1)
            #expect(samples[#"catalog_http_request_duration_seconds_count{\#(moves),status="200"}"#] == 1)
            #expect(samples[#"catalog_http_requests_total{route="/catalogs/{name}",method="GET",status="200"}"#] == 1)
            #expect(samples[#"catalog_http_requests_total{route="/catalogs/{name}",method="GET",status="404"}"#] == 1)
            // A path no route answers is counted under one label, whatever the path.
            #expect(samples[#"catalog_http_requests_total{route="unmatched",method="GET",status="404"}"#] == 1)
            #expect(!samples.keys.contains { $0.contains("/no/such/route") })
            #expect(samples[#"catalog_writes_total{kind="move",outcome="committed"}"#] == 1)
            #expect(samples[#"catalog_writes_total{kind="move",outcome="refused"}"#] == 1)
            #expect(samples[#"catalog_write_duration_seconds_count{kind="move"}"#] == 2)
            #expect(samples["catalog_event_stream_subscribers"] == 1)
            // The pool's figures are there for PostgreSQL only: SQLite has no pool to wait for.
            let pool = samples["catalog_database_connections_in_use"]
            let notifications = samples["catalog_database_notifications_received_total"]
            #expect((pool != nil) == (store is PostgresCatalogStore))
            #expect((notifications != nil) == (store is PostgresCatalogStore))
            if store is PostgresCatalogStore {
                #expect(samples["catalog_database_connections_waiting"] == 0)
                #expect(pool == 0)
            }
            stream.close()
        }
    }

    @Test(arguments: Backend.available)
    func withATokenMetricsNeedIt(backend: Backend) async throws {
        // Reads open to all, and yet /metrics (every client's traffic) needs the token.
        try await ServerTests.withServer(on: backend, ServerConfiguration(port: 0, token: "s3cret")) { client, _ in
            try await client.execute(uri: "/metrics", method: .get) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: "/catalogs/shelf", method: .get) { #expect($0.status == .ok) }
            let samples = try await Self.scrape(client, token: "s3cret")
            #expect(samples[#"catalog_http_requests_total{route="/metrics",method="GET",status="401"}"#] == 1)
        }
    }

    @Test(.enabled(if: TestPostgres.url != nil, "needs PostgreSQL"))
    func notificationsFromAnotherInstanceAreCounted() async throws {
        try await withTwoHandles(.postgres) { a, b in
            try await a.replace([(ServerTests.shelves, nil)], progress: nil)
            try await TwoInstanceTests.live(b) { client in
                // B listens while someone observes; a stream on B makes it listen.
                let stream = try RawConnection(port: try #require(client.port))
                stream.openEventStream("/catalogs/shelf/events")
                #expect(await stream.awaitEvents(1).first?.event == "snapshot")
                // B's listener connects and listens beside the stream, which does not wait for it;
                // a write before that reaches B by its reading on listening, not by a
                // notification. So A writes (b0 to c and back) until B has counted one.
                var samples: [String: Double] = [:]
                for write in 0..<60 {
                    try await a.move(item: "b0", toSection: write % 2 == 0 ? "c" : "b", in: "shelf")
                    _ = await stream.awaitEvents { $0.last?.id == String(write + 2) }
                    samples = try await Self.scrape(client)
                    for _ in 0..<10 where (samples["catalog_database_notifications_received_total"] ?? 0) < 1 {
                        try await Task.sleep(for: .milliseconds(100))
                        samples = try await Self.scrape(client)
                    }
                    if (samples["catalog_database_notifications_received_total"] ?? 0) >= 1 { break }
                }
                #expect((samples["catalog_database_notifications_received_total"] ?? 0) >= 1)
                // The write was A's: B counted none.
                #expect(samples[#"catalog_writes_total{kind="move",outcome="committed"}"#] == nil)
                stream.close()
            }
        }
    }
}
