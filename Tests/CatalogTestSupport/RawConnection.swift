import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain TCP connection to a server on loopback, for tests that need what an HTTP client
/// hides: a request sent a line at a time, a response read as it streams.
public final class RawConnection {
    let descriptor: Int32
    private var received: [UInt8] = []

    /// Connects to 127.0.0.1:`port`; reads give up after `readTimeout` seconds. A small
    /// `receiveBuffer` makes a client that does not read fill up quickly. `source` is another
    /// loopback address to connect from (127.0.0.2, …): another client, as the server counts them.
    public init(port: Int, readTimeout: Int = 1, receiveBuffer: Int32? = nil, from source: String? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                Glibc.close(descriptor)
                throw POSIXError(.EADDRNOTAVAIL)
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(descriptor)
            throw POSIXError(.ECONNREFUSED)
        }
        var timeout = timeval(tv_sec: readTimeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    private var closed = false

    deinit { close() }

    /// Closes the connection from this side (also when the connection is released).
    public func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(descriptor)
    }

    /// Sends `text`; false once the server has closed the connection.
    @discardableResult
    public func send(_ text: String) -> Bool {
        Array(text.utf8).withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } > 0
    }

    /// Whether the server has closed the connection (a read returns end of file or a reset).
    public var isClosedByServer: Bool {
        var byte: UInt8 = 0
        let count = recv(descriptor, &byte, 1, 0)
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }

    /// Reads what has arrived, waiting at most the read timeout; false at end of stream.
    @discardableResult
    public func receive() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        if count > 0 { received += buffer[0..<count] }
        return count != 0 && !(count < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }

    /// Reads everything the server sent and reports whether it then closed the connection
    /// (true), or keeps it open with nothing more to say for `seconds` (false). Unlike
    /// ``isClosedByServer``, this sees a close behind unread data.
    public func drainUntilClosed(quietFor seconds: Double = 1) async -> Bool {
        var quietSince = Date()
        while Date().timeIntervalSince(quietSince) < seconds {
            switch poll() {
            case .closed: return true
            case .received: quietSince = Date()
            case .nothing: try? await Task.sleep(for: .milliseconds(5))
            }
        }
        return false
    }

    private enum PollResult { case received, nothing, closed }

    /// Why the last read found the connection closed (for failure messages).
    public private(set) var closedBecause: String?

    /// One read that does not wait: what arrived is appended to what was received.
    private func poll() -> PollResult {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        if count > 0 {
            received += buffer[0..<count]
            return .received
        }
        if count == 0 {
            closedBecause = "end of stream"
            return .closed
        }
        let code = errno
        if code == EAGAIN || code == EWOULDBLOCK || code == EINTR { return .nothing }
        closedBecause = "error \(code)"
        return .closed
    }

    /// Forgets what was received so far (a test reading one answer after another on a kept-alive
    /// connection).
    public func clear() { received = [] }

    /// Reads until `count` whole responses with a `Content-Length` have arrived (true), or the
    /// server closes the connection or `seconds` pass (false).
    public func awaitResponses(_ count: Int, seconds: Double = 20) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while completeResponses < count {
            let late = Date() >= deadline
            switch poll() {
            case .closed: return completeResponses >= count
            case .received: if late { return completeResponses >= count }
            case .nothing:
                if late { return false }
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        return true
    }

    /// How many whole responses (head and `Content-Length` bytes of body) were received.
    private var completeResponses: Int {
        var (count, start) = (0, 0)
        let separator = Array("\r\n\r\n".utf8)
        while let end = received[start...].firstRange(of: separator)?.upperBound {
            let head = String(decoding: received[start..<end], as: UTF8.self).lowercased()
            let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            guard received.count >= end + length else { break }
            count += 1
            start = end + length
        }
        return count
    }

    /// Everything received so far, as text.
    public var text: String { String(decoding: received, as: UTF8.self) }
}

/// One Server-Sent Event as a test reads it off the wire.
public struct ServerSentEvent: Hashable, Sendable {
    public var event: String
    public var id: String?
    public var data: String
    /// The `catalog:` line of a stream of many catalogues (`POST /events`).
    public var catalog: String?
}

extension RawConnection {
    /// Opens `GET path` as an event stream (with `headers`).
    public func openEventStream(_ path: String, headers: [String: String] = [:]) {
        send("GET \(path) HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n"
             + headers.map { "\($0): \($1)\r\n" }.joined() + "\r\n")
    }

    /// Opens `POST /events` with `body` (JSON): the event streams of many catalogues.
    public func openEventStreams(_ body: String, headers: [String: String] = [:]) {
        send("POST /events HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\nContent-Type: application/json\r\n"
             + "Content-Length: \(body.utf8.count)\r\n" + headers.map { "\($0): \($1)\r\n" }.joined() + "\r\n" + body)
    }

    /// The events received so far (chunk-size lines of the chunked encoding skipped), and the
    /// number of keep-alive comments.
    public var events: (events: [ServerSentEvent], keepAlives: Int) {
        guard let start = text.range(of: "\r\n\r\n") else { return ([], 0) }
        var events: [ServerSentEvent] = []
        var current: (event: String?, id: String?, data: String?, catalog: String?) = (nil, nil, nil, nil)
        var keepAlives = 0
        // ("\r\n" is one Character in Swift: split the scalars.)
        let body = String(String.UnicodeScalarView(text[start.upperBound...].unicodeScalars.filter { $0 != "\r" }))
        for line in body.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("event: ") { current.event = String(line.dropFirst(7)) }
            else if line.hasPrefix("id: ") { current.id = String(line.dropFirst(4)) }
            else if line.hasPrefix("catalog: ") { current.catalog = String(line.dropFirst(9)) }
            else if line.hasPrefix("data: ") {
                current.data = String(line.dropFirst(6))
                if let event = current.event, let data = current.data {
                    events.append(ServerSentEvent(event: event, id: current.id, data: data, catalog: current.catalog))
                }
                current = (nil, nil, nil, nil)
            } else if line == ": keep-alive" { keepAlives += 1 }
        }
        return (events, keepAlives)
    }

    /// Reads until `count` events have arrived or `seconds` pass; returns the events.
    public func awaitEvents(_ count: Int, seconds: Double = 20) async -> [ServerSentEvent] {
        await awaitEvents(seconds: seconds) { $0.count >= count }
    }

    /// Reads until the events received satisfy `done` or `seconds` pass; returns the events.
    public func awaitEvents(seconds: Double = 20, until done: ([ServerSentEvent]) -> Bool) async -> [ServerSentEvent] {
        await awaitStream(seconds: seconds) { done($0.events) }.events
    }

    /// Reads until the events and keep-alives received satisfy `done`, the server closes the
    /// stream or `seconds` pass; returns them. Waiting suspends rather than blocks, so a test
    /// never holds a thread the server under test may need.
    @discardableResult
    public func awaitStream(seconds: Double = 20,
                            until done: ((events: [ServerSentEvent], keepAlives: Int)) -> Bool) async
        -> (events: [ServerSentEvent], keepAlives: Int) {
        let deadline = Date().addingTimeInterval(seconds)
        // The socket is read once more after the deadline passes: a test process whose tasks
        // wait for a thread may wake past the deadline with the answer already there.
        while !done(events) {
            // Taken before the read, so that the read after the deadline still happens.
            let late = Date() >= deadline
            switch poll() {
            case .closed: return events
            case .received: if late { return events }
            case .nothing:
                if late { return events }
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        return events
    }
}
