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

    /// Why a stream for `client` cannot open now, or nil when it took a slot (given back when
    /// the returned slot is released).
    enum Refusal: Equatable {
        case full(limit: Int)
        case clientFull(limit: Int)
    }

    /// A slot for `client`'s stream, or why there is none. The slot goes back when the last
    /// reference to it goes (the response body that holds it ends, or is never written).
    func take(for client: String) -> Result<Slot, RefusalError> {
        lock.withLock {
            // The client's own cap first: when both are reached, that is the one it can act on.
            if openByClient[client, default: 0] >= limitPerClient {
                return .failure(RefusalError(refusal: .clientFull(limit: limitPerClient)))
            }
            if open >= limit { return .failure(RefusalError(refusal: .full(limit: limit))) }
            open += 1
            openByClient[client, default: 0] += 1
            return .success(Slot(slots: self, client: client))
        }
    }

    /// The streams open now, in all and for `client`.
    func count(for client: String) -> (all: Int, client: Int) {
        lock.withLock { (open, openByClient[client] ?? 0) }
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

    struct RefusalError: Error {
        var refusal: Refusal
    }
}
