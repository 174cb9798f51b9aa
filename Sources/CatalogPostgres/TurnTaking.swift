import Foundation

/// Runs async work one at a time per key, in order of arrival: the observers of one catalogue
/// compute their updates in turn, so that when many wake at once for a revision only the first
/// reads the catalogue (the others find it kept) and they hold one pooled connection between
/// them, never the pool the writes need.
final class TurnTaking: @unchecked Sendable {
    private let lock = NSLock()
    private var queues: [String: [CheckedContinuation<Void, Never>]] = [:]

    /// How many wait for a turn for `key` behind the one that runs; nil when none runs.
    func waiting(for key: String) -> Int? {
        lock.withLock { queues[key]?.count }
    }

    /// Runs `body` when every earlier turn for `key` is over.
    func inTurn<Result>(for key: String, _ body: () async throws -> Result) async rethrows -> Result {
        await withCheckedContinuation { continuation in
            let first: Bool = lock.withLock {
                if var queue = queues[key] {
                    queue.append(continuation)
                    queues[key] = queue
                    return false
                }
                queues[key] = []
                return true
            }
            if first { continuation.resume() }
        }
        defer {
            let next: CheckedContinuation<Void, Never>? = lock.withLock {
                guard var queue = queues[key], !queue.isEmpty else {
                    queues[key] = nil
                    return nil
                }
                let next = queue.removeFirst()
                queues[key] = queue
                return next
            }
            next?.resume()
        }
        return try await body()
    }
}
