import Foundation

/// `work`, or the error that `arm`'s `abandon` is called with — whichever comes first — without
/// waiting for `work` then (it is cancelled, and left to end by itself). For waits that
/// cancellation cannot end: postgres-nio leaves a statement unanswered on a server that stopped
/// answering, and on a connection closed before the statement was sent.
///
/// `arm` is called once, before this waits, to set up what abandons the wait.
func abandonable<Value: Sendable>(_ work: @escaping @Sendable () async throws -> Value,
                                  abandonedBy arm: (_ abandon: @escaping @Sendable (any Error) -> Void) -> Void) async throws -> Value {
    let outcome = FirstOutcome<Value>()
    let task = Task {
        do { outcome.finish(.success(try await work())) } catch { outcome.finish(.failure(error)) }
    }
    arm { error in if outcome.finish(.failure(error)) { task.cancel() } }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
            outcome.wait(continuation)
        }
    } onCancel: {
        task.cancel()
    }
}

/// The first of several results to arrive, for a continuation that may start waiting after it
/// did.
final class FirstOutcome<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<Value, any Error>?
    private var continuation: CheckedContinuation<Value, any Error>?

    func wait(_ continuation: CheckedContinuation<Value, any Error>) {
        let ready: Result<Value, any Error>? = lock.withLock {
            if let result { return result }
            self.continuation = continuation
            return nil
        }
        if let ready { continuation.resume(with: ready) }
    }

    /// Whether `outcome` was the first.
    @discardableResult
    func finish(_ outcome: Result<Value, any Error>) -> Bool {
        let (first, waiting): (Bool, CheckedContinuation<Value, any Error>?) = lock.withLock {
            guard result == nil else { return (false, nil) }
            result = outcome
            defer { continuation = nil }
            return (true, continuation)
        }
        waiting?.resume(with: outcome)
        return first
    }
}
