import CatalogServer
import Foundation
import HummingbirdTesting
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Clients that send their requests too slowly are disconnected, and meanwhile everyone else is
/// answered as usual.
@Suite struct SlowClientTests {
    /// A plain TCP connection to the server on loopback.
    final class RawConnection {
        let descriptor: Int32

        init(port: Int) throws {
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
            // Reads give up after a second, so a test never hangs on a server that keeps quiet.
            var timeout = timeval(tv_sec: 1, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }

        deinit { close(descriptor) }

        /// Sends `text`; false once the server has closed the connection.
        @discardableResult
        func send(_ text: String) -> Bool {
            Array(text.utf8).withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } > 0
        }

        /// Whether the server has closed the connection (a read returns end of file or a reset).
        var isClosedByServer: Bool {
            var byte: UInt8 = 0
            let count = recv(descriptor, &byte, 1, 0)
            return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
        }
    }

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
                try await client.execute(uri: "/catalogs", method: .get) { #expect($0.status == .ok) }
            }
            #expect(stillOpen == 0, "\(stillOpen) trickling connections still open after 3 s")
            #expect(trickling.allSatisfy { $0.isClosedByServer })

            // A body that stops halfway is cut off too.
            let stalled = try RawConnection(port: port)
            stalled.send("PUT /catalogs/x HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"sec")
            // (The test client's own keep-alive connection is closed after 0.5 s idle: it asks more often.)
            for _ in 0..<6 {
                try await Task.sleep(for: .milliseconds(200))
                try await client.execute(uri: "/catalogs", method: .get) { #expect($0.status == .ok) }
            }
            #expect(stalled.isClosedByServer)
            try await client.execute(uri: "/catalogs/shelf", method: .get) { #expect($0.status == .ok) }
        }
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
