import Foundation

/// A keep-alive HTTP/1.1 connection to 127.0.0.1 on a blocking socket, for load clients that
/// each run on a thread of their own: a few system calls per request, so the clients cost the
/// machine little next to the servers they measure.
final class BlockingHTTP {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    struct Response {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
    }

    let port: Int
    private var socket: Int32 = -1
    private var buffer: [UInt8] = []
    private var start = 0
    private var scratch = [UInt8](repeating: 0, count: 65_536)

    init(port: Int) {
        self.port = port
    }

    deinit { close() }

    func close() {
        if socket >= 0 { Foundation.close(socket) }
        socket = -1
        buffer.removeAll(keepingCapacity: true)
        start = 0
    }

    /// Ends a connection another thread is reading: its read fails at once.
    func interrupt() {
        if socket >= 0 { shutdown(socket, Int32(SHUT_RDWR)) }
    }

    /// Connects (again) when not connected.
    func connect() throws {
        guard socket < 0 else { return }
        let fd = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Foundation.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Foundation.close(fd)
            throw Failure(description: "connect to port \(port): errno \(errno)")
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        socket = fd
    }

    /// Sends one request and reads its whole answer (Content-Length or chunked).
    func request(_ method: String, _ path: String, body: String? = nil, headers: [String: String] = [:]) throws -> Response {
        try connect()
        do {
            try send(method, path, body: body, headers: headers)
            let (status, fields) = try readHead()
            return Response(status: status, headers: fields, body: try readBody(fields))
        } catch {
            close()
            throw error
        }
    }

    /// Sends a request whose answer is read piece by piece (an event stream): returns its head.
    func open(_ path: String, headers: [String: String]) throws -> (status: Int, headers: [String: String]) {
        try connect()
        try send("GET", path, body: nil, headers: headers)
        return try readHead()
    }

    /// The next chunk of a chunked answer; nil at its end.
    func nextChunk() throws -> [UInt8]? {
        let sizeLine = try readLine()
        guard let size = Int(sizeLine.split(separator: ";").first ?? "", radix: 16) else {
            throw Failure(description: "a chunk size that is not hexadecimal: \(sizeLine)")
        }
        if size == 0 {
            _ = try readLine()
            return nil
        }
        let chunk = try read(size)
        _ = try readLine()
        return chunk
    }

    private func send(_ method: String, _ path: String, body: String?, headers: [String: String]) throws {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        let bytes = Array((body ?? "").utf8)
        if body != nil { text += "Content-Type: application/json\r\nContent-Length: \(bytes.count)\r\n" }
        text += "\r\n"
        var all = Array(text.utf8) + bytes
        var sent = 0
        while sent < all.count {
            let n = all.withUnsafeMutableBytes { Foundation.send(socket, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send: errno \(errno)") }
            sent += n
        }
        all.removeAll()
    }

    private func readHead() throws -> (Int, [String: String]) {
        let statusLine = try readLine()
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw Failure(description: "not an HTTP status line: \(statusLine)") }
        var fields: [String: String] = [:]
        while true {
            let line = try readLine()
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (status, fields)
    }

    private func readBody(_ fields: [String: String]) throws -> [UInt8] {
        if let length = fields["content-length"].flatMap(Int.init) { return try read(length) }
        if fields["transfer-encoding"]?.lowercased() == "chunked" {
            var body: [UInt8] = []
            while let chunk = try nextChunk() { body += chunk }
            return body
        }
        return []
    }

    private func fill() throws {
        if start > 0 && (start == buffer.count || start > 1 << 20) {
            buffer.removeFirst(start)
            start = 0
        }
        let n = scratch.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { throw Failure(description: n == 0 ? "the server closed the connection" : "recv: errno \(errno)") }
        buffer += scratch[0..<n]
    }

    private func readLine() throws -> String {
        while true {
            if let newline = buffer[start...].firstIndex(of: 10) {
                var end = newline
                if end > start && buffer[end - 1] == 13 { end -= 1 }
                let line = String(decoding: buffer[start..<end], as: UTF8.self)
                start = newline + 1
                return line
            }
            try fill()
        }
    }

    private func read(_ count: Int) throws -> [UInt8] {
        while buffer.count - start < count { try fill() }
        let bytes = Array(buffer[start..<(start + count)])
        start += count
        return bytes
    }
}
