import CatalogServer
import CatalogTestSupport
import Foundation
import HummingbirdTesting
import Testing

/// Clients that send their requests too slowly are disconnected, and meanwhile everyone else is
/// answered as usual.
@Suite struct SlowClientTests {
    @Test func aClientTricklingItsHeadersIsClosed() async throws {
        let configuration = ServerConfiguration(port: 0, headTimeout: 0.5, bodyTimeout: 0.5)
        try await ServerTests.withServer(configuration) { client, _ in
            let port = try #require(client.port)
            let trickling = try (0..<20).map { _ in try RawConnection(port: port) }
            for connection in trickling { connection.send("GET /catalogs HTTP/1.1\r\nHost: x\r\n") }
            let started = ContinuousClock.now
            // Headers keep coming, a line every 100 ms: the server still closes the connection
            // once the whole head is overdue, and answers other clients meanwhile.
            var stillOpen = trickling.count
            while stillOpen > 0, ContinuousClock.now - started < .seconds(3) {
                try await Task.sleep(for: .milliseconds(100))
                stillOpen = trickling.filter { $0.send("X-Slow: 1\r\n") }.count
                try await Self.expectAnswered("/catalogs", port: port)
            }
            #expect(stillOpen == 0, "\(stillOpen) trickling connections still open after 3 s")
            #expect(trickling.allSatisfy { $0.isClosedByServer })

            // A body that stops halfway is cut off too.
            let stalled = try RawConnection(port: port)
            stalled.send("PUT /catalogs/x HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"sec")
            for _ in 0..<6 {
                try await Task.sleep(for: .milliseconds(200))
                try await Self.expectAnswered("/catalogs", port: port)
            }
            #expect(stalled.isClosedByServer)
            try await Self.expectAnswered("/catalogs/shelf", port: port)
        }
    }

    /// Another client is answered, on a connection of its own (a kept-alive one would itself
    /// idle past these short timeouts on a busy machine and be closed).
    static func expectAnswered(_ path: String, port: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let other = try RawConnection(port: port)
        other.send("GET \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        _ = await other.drainUntilClosed(quietFor: 5)
        #expect(other.text.hasPrefix("HTTP/1.1 200"), "\(other.text)", sourceLocation: sourceLocation)
    }

    @Test func aKeepAliveConnectionServesRequestsWithinTheTimeout() async throws {
        let configuration = ServerConfiguration(port: 0, headTimeout: 1, bodyTimeout: 1)
        try await ServerTests.withServer(configuration) { client, _ in
            // The test client keeps one connection: requests 300 ms apart go through it.
            for _ in 0..<5 {
                try await client.execute(uri: "/catalogs", method: .get) { #expect($0.status == .ok) }
                try await Task.sleep(for: .milliseconds(300))
            }
        }
    }
}
