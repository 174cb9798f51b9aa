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
final class WorkLimiter: @unchecked Sendable {
    private let lock = NSLock()
    private var available: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var next = 0
    private let threads: NIOThreadPool

    init(permits: Int) {
        available = max(1, permits)
        threads = NIOThreadPool(numberOfThreads: available)
        threads.start()
    }

    /// Runs `body` holding one permit (waiting for one first).
    func withPermit<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    /// Runs blocking `work` on this limiter's threads and waits for it without holding a thread.
    /// The caller holds a permit (``withPermit(_:)``).
    func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await threads.runIfActive(work)
    }

    /// ``offload(_:)`` under a permit of its own.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withPermit { try await offload(work) }
    }

    private func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = lock.withLock {
                if available > 0 {
                    available -= 1
                    return true
                }
                waiting.append(continuation)
                return false
            }
            if granted { continuation.resume() }
        }
    }

    private func release() {
        let successor: CheckedContinuation<Void, Never>? = lock.withLock {
            guard next < waiting.count else {
                available += 1
                return nil
            }
            let first = waiting[next]
            next += 1
            // Forget the served prefix now and then, so the list does not grow without end.
            if next > 64 && next * 2 > waiting.count {
                waiting.removeFirst(next)
                next = 0
            }
            return first
        }
        successor?.resume()
    }
}
