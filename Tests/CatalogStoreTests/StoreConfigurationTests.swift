import CatalogModel
import Foundation
import GRDB
import Testing
@testable import CatalogStore

/// What a phone asks of a store (docs/Apps.md): a read-only store that never writes the file, a
/// hook on every connection (an encrypted database's key), a page-cache size, suspension, and an
/// observed store that costs nothing while nothing changes.
@Suite struct StoreConfigurationTests {
    static let shelves = ObservationTests.shelves

    /// A counter the hooks bump from any connection's queue.
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func bump() { lock.withLock { value += 1 } }
        var count: Int { lock.withLock { value } }
    }

    @Test func aReadOnlyStoreReadsAndObservesButNeverWritesTheFile() async throws {
        let (path, folder) = try temporaryDatabasePath()
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let store = try CatalogStore(path: path)
            try store.replace(Self.shelves)
        }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        var configuration = StoreConfiguration()
        configuration.readOnly = true
        do {
            let store = try CatalogStore(path: path, configuration: configuration)
            #expect(try store.catalog(named: "shelf").sections.map(\.items.count) == [3, 1])
            #expect(throws: StoreError.self) { try store.replace(Self.shelves.with(revision: 0)) }
            #expect(throws: StoreError.self) { try store.move(item: "a0", toSection: "b", index: 0, in: "shelf") }
            let observer = store.observer(of: "shelf")
            #expect(try await observer.next(waitingAtMost: .seconds(10))?.revision == 1)
            #expect(try store.catalog(named: "shelf").revision == 1)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
        let log = (try? Data(contentsOf: URL(fileURLWithPath: path + "-wal"))) ?? Data()
        #expect(log.isEmpty, "no log written")
    }

    @Test func aReadOnlyStoreRefusesAMissingFileAndAnOldSchema() throws {
        let (path, folder) = try temporaryDatabasePath()
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = StoreConfiguration()
        configuration.readOnly = true
        #expect(throws: StoreError.self) { try CatalogStore(path: path, configuration: configuration) }
        #expect(!FileManager.default.fileExists(atPath: path), "nothing created")
        // A database migrated only part of the way: read-only cannot finish it.
        do {
            let queue = try DatabaseQueue(path: path)
            _ = try CatalogStore(writer: queue, path: path, upTo: CatalogStore.migrationIDs[0])
        }
        #expect {
            try CatalogStore(path: path, configuration: configuration)
        } throws: { error in
            guard case StoreError.cannotOpen(_, let reason) = error else { return false }
            return reason.contains("migrating")
        }
    }

    @Test func theHookRunsFirstOnEveryConnectionAndAHookThatThrowsFailsTheOpen() async throws {
        let (path, folder) = try temporaryDatabasePath()
        defer { try? FileManager.default.removeItem(at: folder) }
        let hooks = Counter()
        var configuration = StoreConfiguration()
        configuration.prepareDatabase = { db in
            // Before the store's own setup: the page cache is still SQLite's default.
            if try Int.fetchOne(db, sql: "PRAGMA cache_size") == -2000 { hooks.bump() }
        }
        configuration.pageCacheSize = 2 << 20
        let store = try CatalogStore(path: path, configuration: configuration)
        try store.replace(Self.shelves)
        let opened = hooks.count
        #expect(opened >= 1)
        #expect(try await store.writer.read { db in try Int.fetchOne(db, sql: "PRAGMA cache_size") } == -2048)
        // The watch of other connections opens one of its own, with the hook too.
        let observer = store.observer(of: "shelf", from: 1)
        let other = try CatalogStore(path: path, configuration: configuration)
        try await other.move(item: "a0", toSection: "b", index: 0, in: "shelf")
        #expect(try await observer.next(waitingAtMost: .seconds(30))?.revision == 2)
        #expect(hooks.count > opened + 1)

        struct WrongKey: Error, CustomStringConvertible { var description: String { "file is not a database (wrong key)" } }
        var refusing = StoreConfiguration()
        refusing.prepareDatabase = { _ in throw WrongKey() }
        #expect {
            try CatalogStore(path: path, configuration: refusing)
        } throws: { error in
            guard case StoreError.cannotOpen(let opened, let reason) = error else { return false }
            return opened == path && reason.contains("wrong key")
        }
        #expect(try store.catalog(named: "shelf").revision == 2)
    }

    @Test func aSuspendedStoreRefusesWritesAndChangesNothing() throws {
        let (path, folder) = try temporaryDatabasePath()
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = StoreConfiguration()
        configuration.observesSuspensionNotifications = true
        let store = try CatalogStore(path: path, configuration: configuration)
        try store.replace(Self.shelves)
        NotificationCenter.default.post(name: Database.suspendNotification, object: nil)
        #expect(throws: StoreError.self) { try store.move(item: "a0", toSection: "b", index: 0, in: "shelf") }
        NotificationCenter.default.post(name: Database.resumeNotification, object: nil)
        #expect(try store.catalog(named: "shelf").revision == 1)
        try store.move(item: "a0", toSection: "b", index: 0, in: "shelf")
        #expect(try store.catalog(named: "shelf").revision == 2)
    }

    /// Observed, with nothing changing: the watch of other connections looks at the file when it
    /// is written, not a hundred times a second. (Fewer looks on a slow machine, never more.)
    @Test func anIdleObservedStoreIsNotPolled() async throws {
        let (path, folder) = try temporaryDatabasePath()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try CatalogStore(path: path)
        try store.replace(Self.shelves)
        let observer = store.observer(of: "shelf", from: 1)
        let watching = Task { try await observer.next(waitingAtMost: .seconds(600)) }
        defer { watching.cancel() }
        while store.notifier.looks == 0 { try await Task.sleep(for: .milliseconds(1)) }
        let before = store.notifier.looks
        try await Task.sleep(for: .milliseconds(500))
        #expect(store.notifier.looks - before <= 2, "\(store.notifier.looks - before) looks in half a second")
        // And a write by another connection is still seen.
        let other = try CatalogStore(path: path)
        try await other.move(item: "a0", toSection: "b", index: 0, in: "shelf")
        #expect(try await watching.value?.revision == 2)
    }

    /// Where the file system cannot tell of writes, the poll backs off while nothing changes.
    @Test func withoutFileEventsThePollBacksOff() async throws {
        let (path, folder) = try temporaryDatabasePath()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try CatalogStore(path: path)
        try store.replace(Self.shelves)
        let notifier = ChangeNotifier(path: path, fileEvents: false)
        notifier.retain()
        defer { notifier.release() }
        while notifier.looks == 0 { try await Task.sleep(for: .milliseconds(1)) }
        try await Task.sleep(for: .seconds(1))
        // 10, 20, 40 … ms apart up to a second: about 7 looks in the first second, not 100.
        #expect(notifier.looks <= 12, "\(notifier.looks) looks")
        let seen = notifier.current
        try await store.move(item: "a0", toSection: "b", index: 0, in: "shelf")
        #expect(await notifier.wait(after: seen, timeout: .seconds(30)))
    }
}

/// Closing a store releases the file: no connection of it stays open — its revision reader and
/// its watch of other connections included — so the file can be copied or removed without
/// another process truncating SQLite's shared memory under a mapping left behind.
@Suite struct ClosingTests {
    /// The descriptors of this process open on the database's files.
    static func openDescriptors(of path: String) -> Int {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.filter { fd in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)"))?.hasPrefix(path) == true
        }.count
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/fd")), .timeLimit(.minutes(1)))
    func closingReleasesEveryConnectionToTheFile() async throws {
        let (path, folder) = try temporaryDatabasePath()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try CatalogStore(path: path)
        try store.replace(ObservationTests.shelves)
        _ = try store.revision(of: "shelf")   // the revision reader's own connection
        let observer = store.observer(of: "shelf")
        #expect(try await observer.next(waitingAtMost: .seconds(30))?.revision == 1)
        while store.notifier.looks == 0 { try await Task.sleep(for: .milliseconds(1)) }   // the watch's connection
        #expect(Self.openDescriptors(of: path) > 0)
        store.close()
        // The watch's connection closes as its task ends.
        while Self.openDescriptors(of: path) > 0 { try await Task.sleep(for: .milliseconds(1)) }
        // An observer of a closed store is not left waiting.
        await #expect(throws: StoreError.self) { _ = try await observer.next(waitingAtMost: .seconds(30)) }
    }
}
