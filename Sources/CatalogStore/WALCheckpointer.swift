import CatalogStoreCore
import Foundation
import GRDB

/// Copies the write-ahead log back into the database file on a background queue, so that no
/// write pays for it.
///
/// SQLite's automatic checkpoint runs inside the commit that crosses its threshold: one write in
/// about a hundred took 10–15 ms instead of 1 (the p99 of `catalog-bench writes`). Here every
/// `writesPerCheckpoint` writes schedule a passive checkpoint on a connection of its own, which
/// runs beside the writer and readers without blocking them. SQLite's own checkpoint stays as a
/// backstop at a higher threshold (see `CatalogStore.configuration(_:)`), for a log that grows
/// faster than this queue copies it.
final class WALCheckpointer: Sendable {
    let path: String
    private let queue = DispatchQueue(label: "CatalogKit.WALCheckpointer", qos: .utility)
    private let state = State()

    /// Writes between two checkpoints: a move writes about seven pages, so the log stays under
    /// 2,000 pages (8 MiB). Every checkpoint slows the writes that run beside it; at one every
    /// 64 writes, that was enough of them to set the p99 of `catalog-bench writes` (0.79–1.11 ms,
    /// against 0.67–0.77 ms at one every 256).
    static let writesPerCheckpoint = 256

    private let options: StoreConfiguration

    init(path: String, options: StoreConfiguration = StoreConfiguration()) {
        self.path = path
        self.options = options
    }

    /// Counts a committed write; every `writesPerCheckpoint` of them, schedules a checkpoint
    /// unless one is still running.
    func didWrite() {
        guard state.countWrite(every: Self.writesPerCheckpoint) else { return }
        queue.async { [self] in
            run()
            state.finish()
        }
    }

    /// How many checkpoints ran to completion (for tests).
    var completed: Int { state.completed }

    /// Closes its connection once the checkpoint under way (if any) has finished.
    func close() {
        queue.sync { state.close() }
    }

    /// Waits until the checkpoint scheduled last (if any) has finished (for tests).
    func waitUntilIdle() {
        queue.sync {}
    }

    /// Opens its connection on first use (a command that writes once never does) and keeps it.
    private func run() {
        do {
            let connection = try state.connection { [path, options] in
                var configuration = Configuration()
                options.apply(to: &configuration)
                configuration.busyMode = .timeout(1)
                configuration.label = "CatalogKit.WALCheckpointer"
                return try DatabaseQueue(path: path, configuration: configuration)
            }
            // Passive: copies what it can without waiting for the writer or readers. A failure
            // (a busy log) is harmless: the next checkpoint, or SQLite's backstop, catches up.
            _ = try connection.writeWithoutTransaction { db in try db.checkpoint(.passive) }
            state.didComplete()
        } catch {}
    }

    /// The counters and the connection, behind a lock (callers are any thread that writes).
    private final class State: @unchecked Sendable {
        private let lock = NSLock()
        private var writes = 0
        private var running = false
        private var queue: DatabaseQueue?
        private var completions = 0

        var completed: Int { lock.withLock { completions } }

        func didComplete() {
            lock.withLock { completions += 1 }
        }

        func countWrite(every interval: Int) -> Bool {
            lock.withLock {
                writes += 1
                guard writes >= interval, !running else { return false }
                writes = 0
                running = true
                return true
            }
        }

        func finish() {
            lock.withLock { running = false }
        }

        /// Closes the connection; none is opened again.
        func close() {
            lock.withLock {
                try? queue?.close()
                queue = nil
                closed = true
            }
        }
        private var closed = false

        func connection(_ open: () throws -> DatabaseQueue) throws -> DatabaseQueue {
            try lock.withLock {
                if let queue { return queue }
                if closed { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the store is closed") }
                let opened = try open()
                queue = opened
                return opened
            }
        }
    }
}
