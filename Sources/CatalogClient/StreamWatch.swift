import Foundation

/// Watches one connection of an event stream: when it stays silent longer than three of the
/// server's keep-alive intervals (its `Catalog-Keep-Alive` header; 15 s when it sends none), the
/// connection is taken for dead — a proxy or a network that dropped it without a word — and
/// ``watch()`` throws ``Silent``, so that the stream is opened again.
final class StreamWatch: @unchecked Sendable {
    private let lock = NSLock()
    private var last = ContinuousClock.now
    private var limit: Duration
    /// Whether an event of this connection was taken in (the backoff starts again then).
    private var took = false

    /// The keep-alive interval assumed of a server that does not say its own.
    static let defaultKeepAlive: Duration = .seconds(15)

    init(keepAlive: Duration = StreamWatch.defaultKeepAlive) {
        limit = keepAlive * 3
    }

    /// The server said its keep-alive interval (seconds); a value that is not a positive number
    /// of at most an hour is ignored.
    func serverKeepsAlive(every text: String?) {
        guard let text, let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= 3_600 else { return }
        lock.withLock {
            limit = .milliseconds(Int64(seconds * 3_000))
            last = .now
        }
    }

    /// Something arrived.
    func heard(tookIn: Bool = false) {
        lock.withLock {
            last = .now
            if tookIn { took = true }
        }
    }

    var tookIn: Bool { lock.withLock { took } }

    /// Returns never; throws ``Silent`` once the connection has been silent past the limit, or
    /// `CancellationError` when cancelled.
    func watch() async throws {
        while true {
            let (silence, limit) = lock.withLock { (ContinuousClock.now - last, self.limit) }
            if silence > limit { throw Silent(limit: limit) }
            // In steps of at most a second: the server's interval may arrive meanwhile.
            try await Task.sleep(for: min(limit - silence + .milliseconds(1), .seconds(1)))
        }
    }

    struct Silent: Error, CustomStringConvertible {
        var limit: Duration
        var description: String { "the stream was silent for \(limit) (three of the server's keep-alive intervals): taken for dead" }
    }
}
