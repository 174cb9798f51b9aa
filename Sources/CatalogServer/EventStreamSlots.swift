import Foundation

/// How many event streams the server holds open, in all and per client address. An event stream
/// holds its connection for as long as the client likes, so without a cap of their own a few
/// clients could take every connection the server has and shut every other client out (reads
/// need no token). Past a cap a stream is refused with 503 and `Retry-After`, its connection
/// closed; every other request is answered as before.
final class EventStreamSlots: @unchecked Sendable {
    private let lock = NSLock()
    private let limit: Int
    private let limitPerClient: Int
    private var open = 0
    private var openByClient: [String: Int] = [:]

    init(limit: Int, perClient: Int) {
        self.limit = limit
        limitPerClient = perClient
    }

    /// Streams open now.
    var count: Int { lock.withLock { open } }

    /// Why a stream cannot open now: which cap it reached.
    enum Refusal: Error, Equatable {
        case full(limit: Int)
        case clientFull(limit: Int)
    }

    /// A place for `client`'s stream. It goes back when the last reference to it goes (the
    /// response body that holds it ends, or is never written).
    func take(for client: String) throws(Refusal) -> Slot {
        lock.lock()
        defer { lock.unlock() }
        // The client's own cap first: when both are reached, that is the one it can act on.
        if openByClient[client, default: 0] >= limitPerClient { throw .clientFull(limit: limitPerClient) }
        if open >= limit { throw .full(limit: limit) }
        open += 1
        openByClient[client, default: 0] += 1
        return Slot(slots: self, client: client)
    }

    fileprivate func give(_ client: String) {
        lock.withLock {
            open -= 1
            let left = (openByClient[client] ?? 1) - 1
            openByClient[client] = left > 0 ? left : nil
        }
    }

    /// One open stream's place; given back when released.
    final class Slot: Sendable {
        private let slots: EventStreamSlots
        private let client: String

        fileprivate init(slots: EventStreamSlots, client: String) {
            self.slots = slots
            self.client = client
        }

        deinit { slots.give(client) }
    }
}
