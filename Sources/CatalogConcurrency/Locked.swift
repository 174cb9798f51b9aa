import Foundation

/// A value that one thread at a time reads or changes, behind a lock of its own: the one lock type
/// of the package, in the style of the standard library's `Mutex` (which needs macOS 15 and
/// iOS 18, above the package's floor).
///
/// What is shared is the state inside, never a variable beside the lock: a class that needs
/// locked state holds a `Locked` of a struct of it, and is `Sendable` without `@unchecked`. The
/// lock is not recursive: `body` must not call `withLock` on the same value.
package final class Locked<State> {
    // Inlinable, so that each use is specialised for its state where it is called: an
    // unspecialised generic call across modules costs hundreds of instructions a lock.
    @usableFromInline let lock = NSLock()
    @usableFromInline var state: State

    @inlinable
    package init(_ state: State) {
        self.state = state
    }

    /// Runs `body` with the state, holding the lock; what it returns or throws is returned or
    /// thrown.
    @inlinable
    package func withLock<Result, Failure: Error>(_ body: (inout State) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}

// Every access to `state` holds `lock`: the value is handed from thread to thread only whole and
// in turn, which is safe for a state that may cross threads.
extension Locked: @unchecked Sendable where State: Sendable {}

extension Locked: CustomStringConvertible {
    package var description: String { withLock { "Locked(\($0))" } }
}
