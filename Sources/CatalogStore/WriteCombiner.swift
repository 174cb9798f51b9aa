import CatalogStoreCore
import Foundation
import GRDB

/// Runs edits that arrive at the same time in one SQLite transaction (group commit).
///
/// Writes are serialized anyway; what a burst of them — a server answering many clients — pays
/// per write beyond its own statements is the transaction: BEGIN, and the commit that appends
/// every page it dirtied to the write-ahead log. Here edits queue up while a transaction runs;
/// the next group takes every edit waiting, runs them one after another in one transaction and
/// commits once, then hands every edit its result, and repeats while edits keep arriving. Each
/// edit still sees the ones before it, makes its own revision and journal entry and fails alone;
/// a failed commit fails them all, and no caller hears of success before the commit. A lone edit
/// runs as it would anyway.
///
/// A group runs first without savepoints: most edits that fail (a full shelf, a stale revision,
/// an unknown id) fail in their checks, before they write a row, and there is nothing to undo.
/// Only when an edit fails after changing rows (SQLite's count of changed rows moved) is the
/// transaction rolled back and the group run again, each edit in a savepoint of its own. So an
/// edit's body may run twice; like any GRDB write closure, it must act only on the database.
///
/// Two kinds of callers share the queue. A blocking caller (``write(_:_:)``) waits on its own
/// thread and, when its turn comes to lead, runs the group there. An asynchronous caller
/// (``submit(_:_:completion:)``) holds no thread while it waits: its group runs on the
/// combiner's own queue. A server needs the second kind: with one blocked thread per waiting
/// request, the size of a thread pool (a few threads on a small machine), not the number of
/// clients, would cap the group.
/// `Output` is what every edit returns (the store's edits return a ``/CatalogStoreCore/WriteResult``).
final class WriteCombiner<Output>: @unchecked Sendable {
    /// One edit waiting for, or given, its result.
    private final class Request {
        let body: (Database) throws -> Output
        var result: Result<Output, any Error>?
        /// A blocking caller waits on this (to be handed its result, or the lead).
        let done: DispatchSemaphore?
        /// An asynchronous caller's result goes here.
        let completion: ((Result<Output, any Error>) -> Void)?

        init(_ body: @escaping (Database) throws -> Output, completion: ((Result<Output, any Error>) -> Void)? = nil) {
            self.body = body
            self.completion = completion
            done = completion == nil ? DispatchSemaphore(value: 0) : nil
        }
    }

    private let lock = NSLock()
    private var waiting: [Request] = []
    private var leading = false
    private var largest = 1
    /// Where groups led for asynchronous callers run.
    private let queue = DispatchQueue(label: "CatalogKit.WriteCombiner")

    /// The most edits one transaction has carried so far (for tests and benchmarks).
    var largestGroup: Int { lock.withLock { largest } }

    /// Edits waiting for a transaction (for tests).
    var waitingCount: Int { lock.withLock { waiting.count } }

    /// Runs `body` in a write transaction, possibly shared with other callers' edits, blocking
    /// the calling thread until it has committed or failed.
    func write(_ writer: any DatabaseWriter, _ body: @escaping (Database) throws -> Output) throws -> Output {
        let request = Request(body)
        if !enqueue(request) {
            // Woken with a result, or without one to lead the next group.
            request.done!.wait()
        }
        if request.result == nil { lead(writer) }
        return try request.result!.get()
    }

    /// Queues `body` for a write transaction, possibly shared with other callers' edits, and
    /// returns at once; `completion` receives the outcome after the commit (or the failure).
    func submit(_ writer: any DatabaseWriter, _ body: @escaping (Database) throws -> Output,
                completion: @escaping (Result<Output, any Error>) -> Void) {
        let request = Request(body, completion: completion)
        if enqueue(request) {
            queue.async { self.lead(writer) }
        }
    }

    /// Adds `request` to the queue; true when no group is running, so the caller must start one.
    private func enqueue(_ request: Request) -> Bool {
        lock.withLock {
            waiting.append(request)
            if leading { return false }
            leading = true
            return true
        }
    }

    /// Runs one group — every edit waiting, in order of arrival — then hands the lead to the
    /// first edit that arrived meanwhile, so that no caller waits for more than its own group.
    private func lead(_ writer: any DatabaseWriter) {
        let group: [Request] = lock.withLock {
            let group = Array(waiting.prefix(StoreRules.maximumGroup))
            waiting.removeFirst(group.count)
            if group.count > 1 { largest = max(largest, group.count) }
            return group
        }
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
        for (offset, request) in group.enumerated() {
            if let completion = request.completion {
                completion(request.result!)
            } else if offset > 0 {
                // A blocking leader's own request is the group's first; it is not waiting.
                request.done!.signal()
            }
        }
        if let next {
            if let done = next.done {
                done.signal()
            } else {
                queue.async { self.lead(writer) }
            }
        }
    }

    /// Several edits in one transaction, at first without savepoints: an edit that fails before
    /// writing a row leaves nothing to undo. If one fails after changing rows, the transaction is
    /// rolled back and the group runs again with a savepoint per edit, so that edit is undone alone.
    private func runTogether(_ group: [Request], _ writer: any DatabaseWriter, savepoints: Bool = false) {
        do {
            try writer.write { db in
                for request in group {
                    // Some errors (a full disk, an I/O error) make SQLite roll the whole
                    // transaction back: then no later edit may run (GRDB refuses them too), and
                    // the group fails as a whole below.
                    guard db.isInsideTransaction else { break }
                    // The savepoint statements are prepared once and stepped directly (GRDB's
                    // `inSavepoint` parses them on every call). If one of them fails, the error
                    // leaves the loop and the group fails whole.
                    if savepoints { try RawStatement(db, "SAVEPOINT edit").execute() }
                    let changes = db.totalChangesCount
                    do {
                        request.result = .success(try request.body(db))
                    } catch {
                        request.result = .failure(error)
                    }
                    guard db.isInsideTransaction else { break }
                    if case .failure = request.result {
                        if savepoints {
                            try RawStatement(db, "ROLLBACK TO edit").execute()
                        } else if db.totalChangesCount != changes {
                            throw FailedAfterWriting()
                        }
                    }
                    if savepoints { try RawStatement(db, "RELEASE edit").execute() }
                }
                if !db.isInsideTransaction {
                    throw StoreError.database("a write failed and SQLite rolled back the transaction it shared with others")
                }
            }
        } catch is FailedAfterWriting {
            runTogether(group, writer, savepoints: true)
        } catch {
            // The transaction did not commit: nothing of the group was written.
            for request in group { request.result = .failure(error) }
        }
    }

    /// Thrown out of a group's transaction (rolling it back) when an edit without a savepoint
    /// failed after changing rows.
    private struct FailedAfterWriting: Error {}
}
