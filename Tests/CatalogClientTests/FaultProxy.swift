import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTesting
import HTTPTypes
import NIOCore
import NIOHTTP1
import Testing

/// A reverse proxy between a device and a live server that answers some requests itself, as a
/// proxy, load balancer or captive portal does: each request is given to `fault` first, and
/// forwarded (streaming the answer back, event streams too) when it returns nil.
enum FaultProxy {
    /// What the proxy is shown of a request: its method, path (with query) and body.
    struct Seen: Sendable {
        var method: String
        var path: String
        var body: String
        var headers: HTTPFields
    }

    static func html(_ status: HTTPResponse.Status) -> Response {
        Response(status: status, headers: [.contentType: "text/html"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: "<html><body><h1>\(status.code) \(status.reasonPhrase)</h1><hr>nginx</body></html>")))
    }

    /// What the proxy does with one request.
    enum Fault: Sendable {
        /// Forwards it and streams the server's answer back.
        case pass
        /// Answers it itself; the server never sees it.
        case answer(Response)
        /// Forwards it, drops the server's answer, and answers this instead (the server applied
        /// the write; the client never hears so).
        case loseAnswer(Response)
        /// Forwards it twice, answering with the second answer (a retrying proxy).
        case duplicate
        /// Forwards it and cuts the answer after this many bytes of its body (a dropped
        /// connection), the server's work done.
        case truncate(after: Int)
        /// Forwards it after this many milliseconds.
        case delay(milliseconds: Int)
    }

    static func run(to upstream: URL, fault: @escaping @Sendable (Seen) -> Response? = { _ in nil },
                    _ test: @escaping @Sendable (URL) async throws -> Void) async throws {
        try await run(toCurrent: { upstream }, fault: fault, test)
    }

    static func run(toCurrent upstream: @escaping @Sendable () -> URL, fault: @escaping @Sendable (Seen) -> Response? = { _ in nil },
                    streams open: OpenStreams = OpenStreams(), _ test: @escaping @Sendable (URL) async throws -> Void) async throws {
        try await run(toCurrent: upstream, deciding: { seen in fault(seen).map(Fault.answer) ?? .pass }, streams: open, test)
    }

    /// A proxy to whichever server `upstream` names at each request (a deploy that swaps the
    /// server behind one address).
    static func run(toCurrent upstream: @escaping @Sendable () -> URL, deciding decide: @escaping @Sendable (Seen) -> Fault,
                    streams open: OpenStreams = OpenStreams(), _ test: @escaping @Sendable (URL) async throws -> Void) async throws {
        let router = Router()
        let handler: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
            let url = upstream().absoluteString
            let base = url.hasSuffix("/") ? String(url.dropLast()) : url
            let body = try await request.body.collect(upTo: 64 << 20)
            let seen = Seen(method: request.method.rawValue, path: request.uri.string, body: String(buffer: body), headers: request.headers)
            let fault = decide(seen)
            if case .answer(let answer) = fault { return answer }
            if case .delay(let milliseconds) = fault { try await Task.sleep(for: .milliseconds(milliseconds)) }
            var forwarded = HTTPClientRequest(url: base + request.uri.string)
            forwarded.method = HTTPMethod(rawValue: request.method.rawValue)
            for field in request.headers where field.name.canonicalName != "host" { forwarded.headers.add(name: field.name.rawName, value: field.value) }
            if body.readableBytes > 0 { forwarded.body = .bytes(body) }
            var response = try await HTTPClient.shared.execute(forwarded, timeout: .hours(1))
            switch fault {
            case .loseAnswer(let instead):
                _ = try await response.body.collect(upTo: 64 << 20)
                return instead
            case .duplicate:
                _ = try await response.body.collect(upTo: 64 << 20)
                response = try await HTTPClient.shared.execute(forwarded, timeout: .hours(1))
            case .pass, .answer, .truncate, .delay:
                break
            }
            var cut: Int? = nil
            if case .truncate(let after) = fault { cut = after }
            var headers = HTTPFields()
            for (name, value) in response.headers {
                guard let field = HTTPField.Name(name), !["content-length", "transfer-encoding", "connection"].contains(name.lowercased()) else { continue }
                headers.append(HTTPField(name: field, value: value))
            }
            // Streamed through until the upstream ends it or the test does (an event stream would
            // otherwise hold the proxy's shutdown until the server's next keep-alive).
            let (stream, continuation) = AsyncThrowingStream<ByteBuffer, any Error>.makeStream()
            let pump = Task {
                do {
                    var left = cut ?? .max
                    for try await chunk in response.body {
                        guard chunk.readableBytes < left else {
                            // Cut here: the connection drops mid-answer.
                            continuation.yield(chunk.getSlice(at: chunk.readerIndex, length: left) ?? ByteBuffer())
                            continuation.finish(throwing: CancellationError())
                            return
                        }
                        left -= chunk.readableBytes
                        continuation.yield(chunk)
                    }
                    if cut != nil {
                        continuation.finish(throwing: CancellationError())
                        return
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in pump.cancel() }
            open.add(continuation)
            return Response(status: .init(code: Int(response.status.code)), headers: headers, body: ResponseBody(asyncSequence: stream))
        }
        for method in [HTTPRequest.Method.get, .head, .post, .put, .delete] {
            router.on("**", method: method, use: handler)
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            defer { open.finishAll() }
            try await test(URL(string: "http://127.0.0.1:\(try #require(client.port))")!)
        }
    }

    /// The answers being streamed through, ended together when the test ends.
    final class OpenStreams: @unchecked Sendable {
        private let lock = NSLock()
        private var continuations: [AsyncThrowingStream<ByteBuffer, any Error>.Continuation] = []
        func add(_ continuation: AsyncThrowingStream<ByteBuffer, any Error>.Continuation) { lock.withLock { continuations.append(continuation) } }
        /// Ends every answer being streamed (the connections to the server behind dropped).
        func finishAll() { for continuation in lock.withLock({ continuations }) { continuation.finish() } }
    }
}

/// A value a test changes while a proxy reads it.
final class Current<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// A switch a test flips while a proxy or server reads it.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Bool
    init(_ value: Bool = false) { self.value = value }
    var isOn: Bool {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}
