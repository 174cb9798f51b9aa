import CatalogServer
import CatalogTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Clients that send their requests too slowly are disconnected, and meanwhile everyone else is
/// answered as usual.
@Suite struct SlowClientTests {
    @Test func aClientTricklingItsHeadersIsClosed() async throws {
        // Two seconds: long enough that a machine with both cores busy still reads the other
        // clients' whole heads in time, short against the 40 s the test waits.
        let configuration = ServerConfiguration(port: 0, headTimeout: 2, bodyTimeout: 2)
        try await ServerTests.withServer(configuration) { client, _ in
            let port = try #require(client.port)
            let trickling = try (0..<20).map { _ in try RawConnection(port: port) }
            for connection in trickling { connection.send("GET /catalogs HTTP/1.1\r\nHost: localhost\r\n") }
            let started = ContinuousClock.now
            // Headers keep coming, a line every 100 ms: the server still closes the connection
            // once the whole head is overdue, and answers other clients meanwhile. (The deadline
            // is 20× the timeout: a busy machine may be slow, never that slow.)
            var stillOpen = trickling.count
            while stillOpen > 0, ContinuousClock.now - started < .seconds(40) {
                try await Task.sleep(for: .milliseconds(100))
                stillOpen = trickling.filter { $0.send("X-Slow: 1\r\n") }.count
                try await Self.expectAnswered("/catalogs", port: port)
            }
            #expect(stillOpen == 0, "\(stillOpen) trickling connections still open after 40 s")
            #expect(trickling.allSatisfy { $0.isClosedByServer })

            // A body that stops halfway is cut off too, while others are answered.
            let stalled = try RawConnection(port: port)
            stalled.send("PUT /catalogs/x HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"sec")
            let stalledAt = ContinuousClock.now
            var cutOff = false
            while !cutOff, ContinuousClock.now - stalledAt < .seconds(40) {
                try await Task.sleep(for: .milliseconds(200))
                try await Self.expectAnswered("/catalogs", port: port)
                cutOff = await stalled.drainUntilClosed(quietFor: 0.05)
            }
            #expect(cutOff, "a body stalled for 40 s against a 2 s timeout is still open")
            try await Self.expectAnswered("/catalogs/shelf", port: port)
        }
    }

    /// A client trickling a large upload holds only its own reservation of the bodies' budget:
    /// other clients' imports and numbered writes are received and written meanwhile, while it is
    /// still sending. (Before, it held the one body permit, and every import waited for it.)
    @Test(.timeLimit(.minutes(10))) func aTricklingUploadWaitsAlone() async throws {
        let configuration = ServerConfiguration(port: 0, headTimeout: 3_600, bodyTimeout: 3_600)
        try await ServerTests.withServer(configuration) { client, store in
            let port = try #require(client.port)
            let trickler = try RawConnection(port: port)
            defer { trickler.close() }
            #expect(trickler.send("PUT /catalogs/slow HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                                  + "Content-Length: 9000000\r\n\r\n{\"sections\": ["))
            // The server has its head (a request on another connection is answered after it).
            try await Self.expectAnswered("/catalogs", port: port)
            for n in 0..<3 {
                let body = #"{"sections": [{"id": "s", "kind": "bookshelf", "items": []}]}"#
                try await client.execute(uri: "/catalogs/quick\(n)", method: .put, headers: [.contentType: "application/json"],
                                         body: ByteBuffer(string: body)) { #expect($0.status == .created) }
                #expect(trickler.send(" "), "the trickling client was cut off")
            }
            try await client.execute(uri: "/catalogs/shelf/writes", method: .post,
                                     headers: [.contentType: "application/json", HTTPField.Name("Catalog-Client-ID")!: "phone",
                                               HTTPField.Name("Catalog-Client-Sequence")!: "1"],
                                     body: ByteBuffer(string: #"[{"operations": [{"op": "moveItem", "id": "b0", "toSection": "c", "index": 0}]}]"#)) {
                #expect($0.status == .ok)
            }
            #expect(try store.summaries().map(\.name) == ["quick0", "quick1", "quick2", "shelf"])
            #expect(!trickler.isClosedByServer)
        }
    }

    /// Another client is answered, on a connection of its own (a kept-alive one would itself
    /// idle past these short timeouts on a busy machine and be closed).
    static func expectAnswered(_ path: String, port: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let other = try RawConnection(port: port)
        other.send("GET \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        _ = await other.drainUntilClosed(quietFor: 5)
        #expect(other.text.hasPrefix("HTTP/1.1 200"), "\(other.text)", sourceLocation: sourceLocation)
    }

    @Test func aKeepAliveConnectionServesRequestsWithinTheTimeout() async throws {
        // A 10 s timeout against requests 100 ms apart: a hundredfold margin, so a busy machine
        // cannot make the pause outlast the timeout.
        let configuration = ServerConfiguration(port: 0, headTimeout: 10, bodyTimeout: 10)
        try await ServerTests.withServer(configuration) { client, _ in
            let port = try #require(client.port)
            // One connection, kept alive: every request on it is answered, and it stays open.
            let connection = try RawConnection(port: port)
            for _ in 0..<5 {
                #expect(connection.send("GET /catalogs HTTP/1.1\r\nHost: localhost\r\n\r\n"))
                #expect(await connection.awaitResponses(1), "\(connection.text)")
                connection.clear()
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(await !connection.drainUntilClosed(quietFor: 0.2))
            connection.close()  // so that the server's shutdown does not wait for it
        }
    }
}

/// Event streams hold their connections for as long as clients like: they have caps of their
/// own, in all and per client address, so that no client can shut the others out.
@Suite struct EventStreamCapTests {
    @Test func pastTheCapsStreamsAreRefusedAndEveryoneElseIsAnswered() async throws {
        // (A long head timeout: the test client's own connection waits idle meanwhile.)
        let configuration = ServerConfiguration(port: 0, headTimeout: 120, maxConnections: 64, maxEventStreams: 8, maxEventStreamsPerClient: 3)
        try await ServerTests.withServer(configuration) { client, _ in
            let port = try #require(client.port)
            func stream(from address: String) throws -> RawConnection {
                let connection = try RawConnection(port: port, from: address)
                connection.openEventStream("/catalogs/shelf/events")
                return connection
            }
            var open: [RawConnection] = []
            for address in ["127.0.0.1", "127.0.0.2", "127.0.0.3"] {
                for _ in 0..<3 { open.append(try stream(from: address)) }
            }
            // Each of the first eight gets its snapshot; the ninth finds the server's cap.
            var answered = 0
            var refused: [RawConnection] = []
            for connection in open {
                let events = await connection.awaitStream { $0.events.count >= 1 || connection.text.hasPrefix("HTTP/1.1 503") }
                if events.events.first?.event == "snapshot" { answered += 1 } else { refused.append(connection) }
            }
            #expect(answered == 8 && refused.count == 1)
            for connection in refused {
                #expect(connection.text.hasPrefix("HTTP/1.1 503"), "\(connection.text)")
                #expect(connection.text.lowercased().contains("retry-after: 5"))
                #expect(connection.text.contains("too-many-streams"))
                #expect(await connection.drainUntilClosed(quietFor: 10), "a refused stream's connection stays open")
            }
            // A client address at its own cap is refused even when the server has room.
            open.removeLast()  // the third address's last stream closes: one place free in all
            let fourth = try stream(from: "127.0.0.1")
            _ = await fourth.awaitStream { _ in fourth.text.hasPrefix("HTTP/1.1 503") || fourth.text.contains("snapshot") }
            #expect(fourth.text.hasPrefix("HTTP/1.1 503") && fourth.text.contains("this client address"), "\(fourth.text.prefix(300))")

            // With both caps reached, reads and writes are answered as usual: nothing waits for
            // a stream to close. (How fast is the load script's to measure, not a test's.)
            for _ in 0..<5 {
                try await client.execute(uri: "/catalogs", method: .get) { #expect($0.status == .ok) }
                try await client.execute(uri: "/catalogs/shelf/moves", method: .post,
                                         headers: [.contentType: "application/json"], body: ByteBuffer(string: #"{"item": "a0", "toSection": "c"}"#)) { #expect($0.status == .ok) }
                try await client.execute(uri: "/catalogs/shelf/moves", method: .post,
                                         headers: [.contentType: "application/json"], body: ByteBuffer(string: #"{"item": "a0", "toSection": "a", "index": 0}"#)) { #expect($0.status == .ok) }
            }
            withExtendedLifetime(open) {}
        }
    }
}
