import Foundation

/// What a ``CatalogClient`` tells the app besides the copies' own updates and the outbox
/// (``CatalogClient/events()``): what the app may want to show a person, since it changes what
/// they see without a write of theirs.
public enum CatalogClientEvent: Sendable, Hashable {
    /// The server's history of `catalog` is not the one the copy followed: its database was
    /// restored from a backup, or is another database at the same address. The copy took the
    /// server's snapshot with the device's waiting writes on top; `resent` writes that the
    /// earlier history had acknowledged are not on the server and were sent again (each is
    /// applied, or listed rejected with the server's reason).
    case historyChanged(catalog: String, resent: Int)
    /// Another device writes under the client id of `catalog` (this database was copied, or
    /// restored from a backup): its waiting writes are sent under a new id, so the two devices
    /// never share answers.
    case newClientID(catalog: String)
}

/// The app's listeners to ``CatalogClientEvent``s: each gets every event from when it started
/// listening, in order.
final class EventListeners: @unchecked Sendable {
    private struct State {
        var continuations: [Int: AsyncStream<CatalogClientEvent>.Continuation] = [:]
        var next = 0
    }

    private let lock = NSLock()
    private var state = State()

    func add() -> AsyncStream<CatalogClientEvent> {
        let (stream, continuation) = AsyncStream<CatalogClientEvent>.makeStream()
        let id = lock.withLock {
            state.next += 1
            state.continuations[state.next] = continuation
            return state.next
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            _ = self.lock.withLock { self.state.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    func tell(_ event: CatalogClientEvent) {
        for continuation in lock.withLock({ Array(state.continuations.values) }) { continuation.yield(event) }
    }
}
