import NIOConcurrencyHelpers

/// Bytes that request bodies being received may hold at once, across the process: a body reserves
/// its declared length (or the limit, when it declares none) before it is read, waiting in turn
/// when the budget is spent, and gives it back once parsed.
///
/// Bodies are received here *before* they take the one permit that parses and writes them
/// (``RouteLimits/bodyWork``): a client that trickles its upload holds only its own reservation,
/// and the imports and batches of other clients are received and written meanwhile — it waits
/// alone. The budget bounds what all of them hold together.
final class ByteBudget: Sendable {
    private struct State {
        var available: Int
        var waiting: [(bytes: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state: NIOLockedValueBox<State>
    let capacity: Int

    init(bytes: Int) {
        capacity = max(1, bytes)
        state = NIOLockedValueBox(State(available: capacity))
    }

    /// Runs `body` holding `bytes` of the budget (at most all of it), waiting for them first;
    /// waiters are served in the order they came.
    func withReservation<T: Sendable>(of bytes: Int, _ body: () async throws -> T) async throws -> T {
        let bytes = min(max(0, bytes), capacity)
        await reserve(bytes)
        defer { release(bytes) }
        return try await body()
    }

    /// The bytes not reserved now (tests).
    var available: Int { state.withLockedValue { $0.available } }

    private func reserve(_ bytes: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLockedValue { state in
                if state.waiting.isEmpty && state.available >= bytes {
                    state.available -= bytes
                    return true
                }
                state.waiting.append((bytes, continuation))
                return false
            }
            if granted { continuation.resume() }
        }
    }

    private func release(_ bytes: Int) {
        let ready: [CheckedContinuation<Void, Never>] = state.withLockedValue { state in
            state.available += bytes
            var ready: [CheckedContinuation<Void, Never>] = []
            while let first = state.waiting.first, first.bytes <= state.available {
                state.available -= first.bytes
                ready.append(first.continuation)
                state.waiting.removeFirst()
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }
}
