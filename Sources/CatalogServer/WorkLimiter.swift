import DequeModule
import Foundation
import NIOPosix

/// Runs heavy work — reading a large body, importing it, drawing a layout — on `permits` threads
/// of its own, one piece at a time on each, the rest waiting their turn in order.
///
/// The server's event loops and Swift's cooperative threads then only ever run short steps, so a
/// client asking for the largest picture in a loop slows other such clients, not a snapshot read
/// or a move; and the memory that heavy work holds is bounded by the number of permits. The
/// threads are always the same ones, so the memory one piece frees is reused by the next (the C
/// allocator keeps separate pools for the threads that allocate).
///
/// A task cancelled while it waits for a permit leaves the line at once with `CancellationError`
/// (its client has gone: ``ClientPresence``), so work nobody waits for any more never runs.
final class WorkLimiter: @unchecked Sendable {
    private let lock = NSLock()
    private var available: Int
    /// The waiting tasks by ticket, and the tickets in the order they came (a cancelled one's
    /// ticket stays in `order` until its turn comes, and is skipped then).
    private var waiting: [Int: CheckedContinuation<Bool, Never>] = [:]
    private var order = Deque<Int>()
    private var nextTicket = 0
    private let threads: NIOThreadPool

    init(permits: Int) {
        available = max(1, permits)
        threads = NIOThreadPool(numberOfThreads: available)
        threads.start()
    }

    /// The number of tasks waiting for a permit.
    var waitingCount: Int { lock.withLock { waiting.count } }

    /// Runs `body` holding one permit (waiting for one first).
    /// - Throws: `CancellationError` when the task is cancelled before it has a permit.
    func withPermit<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await acquire()
        defer { release() }
        return try await body()
    }

    /// Runs blocking `work` on this limiter's threads and waits for it without holding a thread.
    /// The caller holds a permit (``withPermit(_:)``).
    func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await threads.runIfActive(work)
    }

    /// ``offload(_:)`` under a permit of its own; not started when the task is cancelled by the
    /// time it has the permit.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withPermit {
            try Task.checkCancellation()
            return try await offload(work)
        }
    }

    private func acquire() async throws {
        let ticket = lock.withLock {
            nextTicket += 1
            return nextTicket
        }
        let granted = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                // Under the lock, so that a cancellation either comes first (and is seen here) or
                // finds the continuation to resume.
                let answer: Bool? = lock.withLock {
                    if Task.isCancelled { return false }
                    if available > 0 {
                        available -= 1
                        return true
                    }
                    waiting[ticket] = continuation
                    order.append(ticket)
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            lock.withLock { waiting.removeValue(forKey: ticket) }?.resume(returning: false)
        }
        if !granted { throw CancellationError() }
    }

    private func release() {
        let successor: CheckedContinuation<Bool, Never>? = lock.withLock {
            while let ticket = order.popFirst() {
                if let first = waiting.removeValue(forKey: ticket) { return first }
            }
            available += 1
            return nil
        }
        successor?.resume(returning: true)
    }
}
