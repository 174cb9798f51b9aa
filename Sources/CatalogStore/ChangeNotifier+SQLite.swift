import CatalogStoreCore
import Foundation
import GRDB

/// How a SQLite file's notifier learns of other connections' commits: `PRAGMA data_version` on a
/// read-only connection of its own, looked at when the file system says the database's files
/// were written (``DatabaseFileEvents``).
extension ChangeNotifier {
    /// A notifier for a SQLite file, which looks at it while anyone observes: when the file
    /// system says one of its files was written (``DatabaseFileEvents``), at most every
    /// `pollInterval`, and otherwise every ``DatabaseFileEvents/safetyInterval``; where the file
    /// system cannot say (or `fileEvents` is false), every `pollInterval` after a change, backing
    /// off to ``idlePollInterval`` while nothing changes.
    package convenience init(path: String, options: StoreConfiguration = StoreConfiguration(), pollInterval: Duration = .milliseconds(10),
                             fileEvents: Bool = true) {
        if path == ":memory:" || path.isEmpty {
            // No other connection can write a store in memory.
            self.init(watch: nil)
        } else {
            self.init { notifier in
                await ChangeNotifier.poll(path: path, options: options, every: pollInterval, fileEvents: fileEvents, notifier)
            }
        }
    }

    /// How many looks, `pollInterval` apart, follow a file event until one shows a commit.
    static let graceLooks = 20

    /// The longest a poll without file events waits between looks while nothing changes.
    static let idlePollInterval: Duration = .seconds(1)

    private static func poll(path: String, options: StoreConfiguration, every interval: Duration, fileEvents: Bool,
                             _ notifier: () -> ChangeNotifier?) async {
        let events = fileEvents ? DatabaseFileEvents(path: path) : nil
        defer { events?.stop() }
        let clock = ContinuousClock()
        /// Without file events: how long to wait before the next look (doubling while nothing changes).
        var backoff = interval
        /// With file events: how many more looks after an event that showed no commit yet.
        var graceLooks = 0
        var watched: WatchedFile?
        // The first look reads the revisions too: a commit made after an observer's own first
        // look but before the poll began is caught here.
        var last: Int? = nil
        while !Task.isCancelled {
            let looked = clock.now
            var changed = false
            notifier()?.countLook()
            do {
                let file = try watched ?? WatchedFile(path: path, options: options)
                watched = file
                try file.checkStillThere()
                let now = try file.connection.inDatabase { db in try Int.fetchOne(db, sql: "PRAGMA data_version") }
                if now != last || last == nil {
                    let revisions = try file.connection.inDatabase { db in
                        try Dictionary(Row.fetchAll(db, sql: "SELECT name, revision FROM catalog").map { ($0[0] as String, $0[1] as Int) },
                                       uniquingKeysWith: max)
                    }
                    changed = last != nil
                    last = now
                    notifier()?.didRead(revisions)
                }
            } catch {
                // Opened again at the next look, and everything read again.
                (watched, last) = (nil, nil)
                let reason = if case StoreError.database(let message) = error { message } else { CatalogStore.describe(error) }
                notifier()?.watchFailed(.cannotWatch(path: path, reason: reason))
            }
            if let events {
                if changed || graceLooks == 0 {
                    // Looks again after a file event; after the safety interval, one look.
                    graceLooks = await events.next() ? ChangeNotifier.graceLooks : 0
                } else {
                    // A write seen before its commit is visible (SQLite writes the log, then its
                    // index in shared memory, which the file system does not report): look again.
                    graceLooks -= 1
                }
                // A busy writer's commits are looked at together, at most once an interval.
                let since = clock.now - looked
                if since < interval { try? await Task.sleep(for: interval - since) }
            } else {
                backoff = changed ? interval : min(backoff * 2, idlePollInterval)
                try? await Task.sleep(for: backoff)
            }
        }
    }
}


/// The poll's own read-only connection to the database file, and which file it is: a file
/// removed, or replaced by another, is noticed (the connection would go on reading the old one).
private struct WatchedFile {
    let path: String
    let connection: DatabaseQueue
    let identity: (device: UInt64, inode: UInt64)

    init(path: String, options: StoreConfiguration) throws {
        self.path = path
        identity = try Self.identity(of: path)
        var configuration = Configuration()
        options.apply(to: &configuration)
        configuration.readonly = true
        configuration.label = "CatalogKit.ChangeNotifier"
        connection = try DatabaseQueue(path: path, configuration: configuration)
    }

    func checkStillThere() throws {
        guard try Self.identity(of: path) == identity else {
            throw StoreError.database("the database file was replaced by another")
        }
    }

    /// The file's device and inode: one `stat` call, every poll.
    private static func identity(of path: String) throws -> (device: UInt64, inode: UInt64) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw StoreError.database("the database file is gone") }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }
}
