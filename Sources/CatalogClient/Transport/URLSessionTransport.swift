import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A ``CatalogTransport`` of Foundation's URLSession: the default on Apple platforms, where an
/// app then follows a server without SwiftNIO; on Linux it runs on FoundationNetworking.
///
/// Bodies are read through the session's data delegate as they arrive. What its reader has not
/// taken yet is bounded, so a server that sends faster than the device takes in costs bounded
/// memory: on Apple platforms the task is suspended past 1 MiB until the reader catches up; on
/// Linux, whose FoundationNetworking traps when a running task is suspended, the body fails past
/// 64 MiB (the client then reconnects). A redirect to another origin loses the `Authorization`
/// header. The session keeps no cache and no cookies.
public final class URLSessionTransport: CatalogTransport, @unchecked Sendable {
    private let session: URLSession
    private let delegate: SessionDelegate

    /// A transport whose session has `configuration` (its connection limits, proxies, TLS),
    /// without caching or cookies.
    public init(configuration: URLSessionConfiguration = .default) {
        let configuration = configuration.copy() as? URLSessionConfiguration ?? .default
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        // An event stream lasts as long as the device follows.
        configuration.timeoutIntervalForResource = 365 * 86_400
        delegate = SessionDelegate()
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    public func send(_ request: CatalogRequest) async throws -> CatalogResponse {
        var outgoing = URLRequest(url: request.url)
        outgoing.httpMethod = request.method
        for (name, value) in request.headers { outgoing.addValue(value, forHTTPHeaderField: name) }
        outgoing.httpBody = request.body
        // URLSession's interval is the longest silence, not the whole exchange: an event
        // stream is kept alive well within it (the client drops one silent for longer itself).
        let seconds = Double(request.timeout.components.seconds) + Double(request.timeout.components.attoseconds) / 1e18
        outgoing.timeoutInterval = min(max(seconds, 1), 300)
        let task = session.dataTask(with: outgoing)
        let exchange = Exchange(task: task)
        delegate.register(exchange, for: task)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                exchange.awaitHead(continuation)
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }
}

/// The session's delegate: hands each task's events to its ``Exchange``.
private final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var exchanges: [Int: Exchange] = [:]

    func register(_ exchange: Exchange, for task: URLSessionTask) {
        lock.withLock { exchanges[task.taskIdentifier] = exchange }
    }

    private func exchange(of task: URLSessionTask, removing: Bool = false) -> Exchange? {
        lock.withLock { removing ? exchanges.removeValue(forKey: task.taskIdentifier) : exchanges[task.taskIdentifier] }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        exchange(of: dataTask)?.received(response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        exchange(of: dataTask)?.received(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        exchange(of: task, removing: true)?.completed(error)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        // The token is for the server the client was given, not for wherever it redirects.
        var next = request
        if let from = task.originalRequest?.url, let to = request.url, !Self.sameOrigin(from, to) {
            next.setValue(nil, forHTTPHeaderField: "Authorization")
        }
        completionHandler(next)
    }

    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        func port(_ url: URL) -> Int? { url.port ?? (url.scheme?.lowercased() == "https" ? 443 : url.scheme?.lowercased() == "http" ? 80 : nil) }
        return a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased() && port(a) == port(b)
    }
}

/// One request's answer as it arrives: its head for the sender, its body's pieces for the reader.
private final class Exchange: @unchecked Sendable {
    private let lock = NSLock()
    private let task: URLSessionTask
    private var head: CheckedContinuation<CatalogResponse, any Error>?
    private var pieces: [Data] = []
    private var buffered = 0
    private var suspended = false
    private var done = false
    private var failure: (any Error)?
    private var reader: CheckedContinuation<Data?, any Error>?

    /// Pieces held for the reader past which the task waits for it, and below which it goes on.
    private static let high = 1 << 20, low = 1 << 18
    /// Where a task cannot wait (FoundationNetworking traps in `suspend()` of a running task),
    /// the most held for the reader before the body fails.
    private static let most = 64 << 20
    #if canImport(FoundationNetworking)
    private static let suspends = false
    #else
    private static let suspends = true
    #endif

    init(task: URLSessionTask) {
        self.task = task
    }

    func awaitHead(_ continuation: CheckedContinuation<CatalogResponse, any Error>) {
        lock.withLock { head = continuation }
    }

    func received(_ response: URLResponse) {
        let http = response as? HTTPURLResponse
        let headers = (http?.allHeaderFields ?? [:]).compactMap { key, value -> (name: String, value: String)? in
            guard let name = key as? String else { return nil }
            return (name, "\(value)")
        }
        let reader = BodyReader(self)
        let answer = CatalogResponse(status: http?.statusCode ?? 0, headers: headers,
                                     body: AsyncThrowingStream(unfolding: { try await reader.next() }))
        lock.withLock { () -> CheckedContinuation<CatalogResponse, any Error>? in
            defer { head = nil }
            return head
        }?.resume(returning: answer)
    }

    func received(_ data: Data) {
        // Decided under the lock, done after it: the task's methods may call back into this
        // exchange (a cancel completes it) on this very thread.
        enum Act { case nothing, suspend, cancel }
        let (waiting, act): (CheckedContinuation<Data?, any Error>?, Act) = lock.withLock {
            if let reader {
                self.reader = nil
                return (reader, .nothing)
            }
            pieces.append(data)
            buffered += data.count
            if Self.suspends && buffered > Self.high && !suspended {
                suspended = true
                return (nil, .suspend)
            } else if !Self.suspends && buffered > Self.most && failure == nil {
                failure = CatalogResponse.TooLarge(limit: Self.most)
                return (nil, .cancel)
            }
            return (nil, .nothing)
        }
        switch act {
        case .nothing: break
        case .suspend: task.suspend()
        case .cancel: task.cancel()
        }
        waiting?.resume(returning: data)
    }

    func completed(_ error: (any Error)?) {
        let (head, reader) = lock.withLock { () -> (CheckedContinuation<CatalogResponse, any Error>?, CheckedContinuation<Data?, any Error>?) in
            done = true
            self.failure = self.failure ?? error
            defer { (self.head, self.reader) = (nil, nil) }
            return (self.head, self.reader)
        }
        let failure = lock.withLock { self.failure }
        head?.resume(throwing: failure ?? URLError(.badServerResponse))
        if let reader {
            if let failure { reader.resume(throwing: failure) } else { reader.resume(returning: nil) }
        }
    }

    /// The next piece of the body; nil at its end.
    func next() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                lock.lock()
                if !pieces.isEmpty {
                    let piece = pieces.removeFirst()
                    buffered -= piece.count
                    let resume = suspended && buffered < Self.low
                    if resume { suspended = false }
                    lock.unlock()
                    if resume { task.resume() }
                    continuation.resume(returning: piece)
                } else if done {
                    let failure = self.failure
                    lock.unlock()
                    if let failure { continuation.resume(throwing: failure) } else { continuation.resume(returning: nil) }
                } else {
                    reader = continuation
                    if suspended {
                        suspended = false
                        lock.unlock()
                        task.resume()
                    } else {
                        lock.unlock()
                    }
                }
            }
        } onCancel: {
            task.cancel()
        }
    }

    /// The body is no longer read: the transfer stops.
    func abandon() {
        if !lock.withLock({ done }) { task.cancel() }
    }
}

/// The reader's end of an ``Exchange``: when the body is dropped unread, the transfer stops.
private final class BodyReader: @unchecked Sendable {
    private let exchange: Exchange

    init(_ exchange: Exchange) { self.exchange = exchange }

    deinit { exchange.abandon() }

    func next() async throws -> Data? { try await exchange.next() }
}
