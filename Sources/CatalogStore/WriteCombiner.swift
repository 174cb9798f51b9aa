import Foundation
import GRDB

/// Runs edits that arrive at the same time in one SQLite transaction (group commit).
///
/// Writes are serialized anyway; what a burst of them — a server answering many clients — pays
/// per write beyond its own statements is the transaction: BEGIN, and the commit that appends
/// every page it dirtied to the write-ahead log. Here the first caller to find no transaction
/// running becomes the leader: it takes every edit waiting, runs each in a savepoint of one
/// transaction and commits once, then wakes the others with their results, and repeats while
/// edits keep arriving. Each edit still sees the ones before it, makes its own revision and
/// journal entry and fails alone (its savepoint rolls back); a failed commit fails them all, and
/// no caller hears of success before the commit. A lone caller runs its edit as it would anyway.
final class WriteCombiner: @unchecked Sendable {
    /// One edit waiting for, or given, its result.
    private final class Request {
        let body: (Database) throws -> Any
        var result: Result<Any, any Error>?
        let done = DispatchSemaphore(value: 0)

        init(_ body: @escaping (Database) throws -> Any) {
            self.body = body
        }
    }

    /// The most edits one transaction carries, so that a steady stream still commits regularly.
    static let maximumGroup = 64

    private let lock = NSLock()
    private var waiting: [Request] = []
    private var leading = false
    private var largest = 1

    /// The most edits one transaction has carried so far (for tests).
    var largestGroup: Int { lock.withLock { largest } }

    /// Edits waiting for a transaction (for tests).
    var waitingCount: Int { lock.withLock { waiting.count } }

    /// Runs `body` in a write transaction, possibly shared with other callers' edits.
    func write<T>(_ writer: any DatabaseWriter, _ body: @escaping (Database) throws -> T) throws -> T {
        let request = Request { db in try body(db) }
        let leads: Bool = lock.withLock {
            waiting.append(request)
            if leading { return false }
            leading = true
            return true
        }
        if !leads {
            // Woken with a result, or without one to lead the next group.
            request.done.wait()
        }
        if request.result == nil { lead(writer) }
        return try request.result!.get() as! T
    }

    /// Runs one group — every edit waiting, the leader's first — then hands the lead to the first
    /// edit that arrived meanwhile, so that no caller waits for more than its own group.
    private func lead(_ writer: any DatabaseWriter) {
        let group: [Request] = lock.withLock {
            let group = Array(waiting.prefix(Self.maximumGroup))
            waiting.removeFirst(group.count)
            return group
        }
        if group.count > 1 { lock.withLock { largest = max(largest, group.count) } }
        if group.count == 1 {
            // Alone: no savepoint needed, a throw rolls the transaction back.
            do {
                let value = try writer.write { db in try group[0].body(db) }
                group[0].result = .success(value)
            } catch {
                group[0].result = .failure(error)
            }
        } else {
            runTogether(group, writer)
        }
        let next: Request? = lock.withLock {
            if let first = waiting.first { return first }
            leading = false
            return nil
        }
        // The leader's own request is the group's first; it is not waiting.
        for request in group.dropFirst() { request.done.signal() }
        next?.done.signal()
    }

    /// Several edits in one transaction, each in a savepoint.
    private func runTogether(_ group: [Request], _ writer: any DatabaseWriter) {
        do {
            try writer.write { db in
                for request in group {
                    // Some errors (a full disk, an I/O error) make SQLite roll the whole
                    // transaction back: then no later edit may run (GRDB refuses them too), and
                    // the group fails as a whole below.
                    guard db.isInsideTransaction else { break }
                    do {
                        var value: Any?
                        try db.inSavepoint {
                            value = try request.body(db)
                            return .commit
                        }
                        request.result = .success(value!)
                    } catch {
                        request.result = .failure(error)
                    }
                }
                if !db.isInsideTransaction {
                    throw StoreError.database("a write failed and SQLite rolled back the transaction it shared with others")
                }
            }
        } catch {
            // The transaction did not commit: nothing of the group was written.
            for request in group { request.result = .failure(error) }
        }
    }
}
