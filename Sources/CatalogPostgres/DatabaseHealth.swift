import CatalogStoreCore
import Foundation
import PostgresNIO

/// Whether the PostgreSQL server answers, as one connection of its own finds every
/// ``checkInterval``: what `GET /ready` reports, and what lets a request fail fast with
/// ``StoreError/unavailable(location:reason:)`` instead of waiting for a pooled connection while
/// the server is gone (the pool keeps trying to connect in the background, and its waiters
/// would wait for as long).
///
/// The server counts as gone once a check fails twice in a row (a refused or broken connection:
/// the second check follows at once), or
/// when ``slowChecks`` checks in a row each took longer than ``deadline`` (a server that stopped
/// answering; a busy machine's slow checks are not enough); as back once a check succeeds.
final class DatabaseHealth: @unchecked Sendable {
    static let checkInterval: Duration = .milliseconds(250)
    static let deadline: Duration = .seconds(5)
    static let slowChecks = 3

    private let lock = NSLock()
    private var failure: String?
    private var waiters: [Int: (continuation: CheckedContinuation<Void, Never>, deadline: ContinuousClock.Instant)] = [:]
    private var nextWaiter = 0
    private var checker: Task<Void, Never>?

    /// Starts checking, each time through a connection of its own made with `configuration`
    /// (closed after the check: nothing is held between checks).
    func start(_ configuration: PostgresConnection.Configuration, logger: Logger) {
        checker = Task.detached { [weak self] in
            var attempt = 0
            var slow = 0
            while !Task.isCancelled {
                do {
                    do {
                        attempt += 1
                        try await Self.check(configuration, id: attempt, logger: logger)
                    } catch where !(error is DeadlineError) {
                        // Once more at once: a connection ended by the server (an operator's
                        // pg_terminate_backend) is not a server gone, and a server restarting
                        // refuses the new connection too.
                        attempt += 1
                        try await Self.check(configuration, id: attempt, logger: logger)
                    }
                    slow = 0
                    self?.succeeded()
                } catch is DeadlineError {
                    slow += 1
                    if slow >= Self.slowChecks { self?.failed("the server did not answer \(Self.slowChecks) checks in a row, each within \(Self.deadline)") }
                } catch {
                    self?.failed(PostgresCatalogStore.describe(error))
                }
                guard let self else { break }
                self.expireWaiters()
                try? await Task.sleep(for: Self.checkInterval)
            }
        }
    }

    /// One check: a new connection answers `SELECT 1` within ``deadline``.
    private static func check(_ configuration: PostgresConnection.Configuration, id: Int, logger: Logger) async throws {
        try await withDeadline {
            let connection = try await PostgresConnection.connect(configuration: configuration, id: id, logger: logger)
            do {
                for try await _ in try await connection.query("SELECT 1", logger: logger) {}
            } catch {
                try? await connection.close()
                throw error
            }
            try? await connection.close()
        }
    }

    func stop() { checker?.cancel() }

    deinit { checker?.cancel() }

    /// Why the server counts as gone, or nil while it answers.
    var unavailableReason: String? { lock.withLock { failure } }

    private func succeeded() {
        lock.withLock { failure = nil }
    }

    private func failed(_ reason: String) {
        let woken: [CheckedContinuation<Void, Never>] = lock.withLock {
            failure = reason
            defer { waiters.removeAll() }
            return waiters.values.map(\.continuation)
        }
        for waiter in woken { waiter.resume() }
    }

    /// Resumes the waiters whose time is up (checked between checks: to within one check).
    private func expireWaiters() {
        let now = ContinuousClock.now
        let expired: [CheckedContinuation<Void, Never>] = lock.withLock {
            let ids = waiters.filter { $0.value.deadline <= now }.map(\.key)
            return ids.compactMap { waiters.removeValue(forKey: $0)?.continuation }
        }
        for waiter in expired { waiter.resume() }
    }

    /// Returns once the server counts as gone (at once if it does), once `timeout` has passed
    /// (to within one check), or when the task is cancelled. Waiting costs no task of its own:
    /// every pooled operation waits so.
    func waitUntilUnavailable(atMost timeout: Duration) async {
        let deadline = ContinuousClock.now + timeout
        let id = lock.withLock {
            nextWaiter += 1
            return nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = lock.withLock { () -> Bool in
                    if failure != nil || Task.isCancelled { return true }
                    waiters[id] = (continuation, deadline)
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            lock.withLock { waiters.removeValue(forKey: id) }?.continuation.resume()
        }
    }

    private struct DeadlineError: Error {}

    /// `work`, or ``DeadlineError`` once ``deadline`` has passed — without waiting for `work`
    /// then: a server that stopped answering may leave a query hanging past any cancellation.
    private static func withDeadline(_ work: @escaping @Sendable () async throws -> Void) async throws {
        try await abandonable(work) { abandon in
            Task {
                try? await Task.sleep(for: deadline)
                abandon(DeadlineError())
            }
        }
    }
}
