import CatalogDiff
import CatalogModel
import Foundation
import GRDB
import Testing
@testable import CatalogStore
@testable import CatalogStoreCore

/// Observing a catalogue (docs/Live-updates.md): every write reaches every observer as one update that starts
/// where the last ended, slow observers get one coalesced update, other connections' writes are
/// seen, and cancelling ends the observation.
@Suite struct ObservationTests {
    static let shelves = Catalog(name: "shelf", sections: [
        Section(id: "a", kind: .bookshelf, capacity: 4, items: books("a", 3)),
        Section(id: "b", kind: .bookshelf, capacity: 4, items: books("b", 1)),
    ])

    static func books(_ prefix: String, _ count: Int) -> [Item] {
        (0..<count).map { Item(id: "\(prefix)\($0)", content: .book(Book(title: "\(prefix) \($0)", cover: "\(prefix)\($0)"))) }
    }

    static func move(_ store: CatalogStore, _ item: String, to section: String, index: Int) throws {
        try store.move(item: item, toSection: section, index: index, policy: .reject, in: "shelf")
    }

    /// Checks that `update` leads from `previous` to its own catalogue, stage by stage.
    static func check(_ update: CatalogUpdate, after previous: Catalog, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let changeset = try #require(update.changeset, sourceLocation: sourceLocation)
        #expect(changeset.fromRevision == previous.revision && changeset.toRevision == update.revision, sourceLocation: sourceLocation)
        #expect(changeset.violations(from: previous, to: update.catalog) == [], sourceLocation: sourceLocation)
        #expect(update.stages.count == changeset.stages.count && (update.stages.last ?? update.catalog) == update.catalog, sourceLocation: sourceLocation)
    }

    @Test func everyWriteReachesEveryObserverInOrder() async throws {
        let store = try CatalogStore.inMemory()
        try store.replace(Self.shelves)
        let observers = (0..<3).map { _ in store.updates(of: "shelf") }
        var iterators = observers.map { $0.makeAsyncIterator() }
        var seen: [Catalog] = []
        for i in iterators.indices {
            let first = try #require(try await iterators[i].next())
            #expect(first.isReset && first.revision == 1)
            seen.append(first.catalog)
        }
        for (n, (item, section)) in [("a0", "b"), ("b0", "a"), ("a1", "b")].enumerated() {
            try Self.move(store, item, to: section, index: 0)
            for i in iterators.indices {
                let update = try #require(try await iterators[i].next())
                #expect(update.revision == n + 2)
                try Self.check(update, after: seen[i])
                seen[i] = update.catalog
            }
        }
        #expect(seen.allSatisfy { $0 == (try? store.catalog(named: "shelf")) })
    }

    @Test func aSlowObserverGetsOneUpdateForEverythingItMissed() async throws {
        let store = try CatalogStore.inMemory()
        try store.replace(Self.shelves)
        var iterator = store.updates(of: "shelf", from: 1).makeAsyncIterator()
        let start = try store.catalog(named: "shelf")
        for _ in 0..<10 {
            try Self.move(store, "a0", to: "b", index: 0)
            try Self.move(store, "a0", to: "a", index: 0)
        }
        // A write that is refused (a full shelf) makes no revision and no update.
        #expect(throws: StoreError.self) {
            try store.apply(Batch(operations: [.insertItem(section: "a", index: 0, item: Self.books("x", 1)[0]),
                                               .insertItem(section: "a", index: 0, item: Self.books("y", 1)[0])]), to: "shelf")
        }
        let update = try #require(try await iterator.next())
        #expect(update.revision == 21)
        try Self.check(update, after: start)
        #expect(update.changeset?.isEmpty == true)  // back where it started
    }

    @Test func observersInStepShareOneComputation() async throws {
        let store = try CatalogStore.inMemory()
        try store.replace(Self.shelves)
        var first = store.updates(of: "shelf", from: 1).makeAsyncIterator()
        var second = store.updates(of: "shelf", from: 1).makeAsyncIterator()
        try Self.move(store, "a0", to: "b", index: 1)
        let one = try #require(try await first.next())
        let two = try #require(try await second.next())
        #expect(one == two)
        #expect(store.updateCache.kept(UpdateCache.Key(name: "shelf", from: 1, to: 2)) == one)
    }

    /// Past the few a commit wakes itself, waiters are woken by a task of their own: every one of
    /// a hundred observers, each waiting, gets every write, in order.
    @Test(.timeLimit(.minutes(1))) func manyWaitingObserversAreAllWoken() async throws {
        let store = try CatalogStore.inMemory()
        try store.replace(Self.shelves)
        let count = ChangeNotifier.wakeInline * 6
        let revisions = try await withThrowingTaskGroup(of: [Int].self) { group in
            for _ in 0..<count {
                let observer = store.observer(of: "shelf", from: 1, resetThreshold: 1_000)
                group.addTask {
                    var seen: [Int] = []
                    while seen.last != 4, let update = try await observer.next() { seen.append(update.revision) }
                    observer.finish()
                    return seen
                }
            }
            // The moves come once the observers may be waiting; each is seen whether or not it was.
            for (item, section) in [("a0", "b"), ("a0", "a"), ("a0", "b")] {
                await Task.yield()
                try Self.move(store, item, to: section, index: 0)
            }
            var all: [[Int]] = []
            for try await seen in group { all.append(seen) }
            return all
        }
        #expect(revisions.count == count)
        // Each observer reaches revision 4, every update moving it on (coalesced ones included).
        #expect(revisions.allSatisfy { $0.last == 4 && $0 == $0.sorted() && Set($0).count == $0.count })
    }

    @Test func resetsForLargeChangesAndAJournalThatNoLongerReaches() async throws {
        let store = try CatalogStore.inMemory()
        try store.replace(Self.shelves)
        var small = store.updates(of: "shelf", from: 1, resetThreshold: 1).makeAsyncIterator()
        var shelves = Self.shelves
        shelves.sections[0].items.reverse()
        try store.replace(shelves)
        let update = try #require(try await small.next())
        #expect(update.isReset && update.revision == 2 && update.stages.isEmpty)
        // A revision past the journal's reach.
        try await store.writer.write { db in try db.execute(sql: "DELETE FROM journal") }
        var late = store.updates(of: "shelf", from: 1).makeAsyncIterator()
        let reset = try #require(try await late.next())
        let now = try store.catalog(named: "shelf")
        #expect(reset.isReset && reset.catalog == now)
    }

    @Test func badStartsAreTypedErrors() async throws {
        let store = try CatalogStore.inMemory()
        try store.replace(Self.shelves)
        var ahead = store.updates(of: "shelf", from: 5).makeAsyncIterator()
        await #expect(throws: StoreError.revisionNotReached(catalog: "shelf", requested: 5, current: 1)) { try await ahead.next() }
        var unknown = store.updates(of: "nope").makeAsyncIterator()
        await #expect(throws: StoreError.unknownCatalog("nope")) { try await unknown.next() }
    }

    @Test func cancellingTheConsumerEndsTheObservation() async throws {
        let store = try CatalogStore.inMemory()
        try store.replace(Self.shelves)
        // The consumer says when it has its first update (the reset); then it is cancelled.
        let (received, signal) = AsyncStream.makeStream(of: Void.self)
        let task = Task {
            var count = 0
            for try await _ in store.updates(of: "shelf") {
                count += 1
                signal.yield()
            }
            return count
        }
        var first = received.makeAsyncIterator()
        _ = await first.next()
        #expect(store.notifier.observerCount == 1)
        task.cancel()
        let count = try await task.value
        #expect(count == 1)
        // The sequence ended and let the notifier go: nothing observes any more.
        #expect(store.notifier.observerCount == 0)
    }

    @Test func writesByAnotherConnectionAreSeen() async throws {
        let (path, folder) = try temporaryDatabasePath()
        defer { try? FileManager.default.removeItem(at: folder) }
        let watching = try CatalogStore(path: path)
        try watching.replace(Self.shelves)
        var iterator = watching.updates(of: "shelf", from: 1).makeAsyncIterator()
        // Another store on the same file: its commits reach `watching` only through the poll.
        let other = try CatalogStore(path: path)
        // (How soon: BENCHMARKS.md, "another connection's write → observer"; a wall-clock
        // bound here would measure the machine.)
        try Self.move(other, "a0", to: "b", index: 0)
        let update = try #require(try await iterator.next())
        #expect(update.revision == 2)
        try Self.check(update, after: Self.shelves.with(revision: 1))
        // The poll read every revision once; observers learn theirs from it, not from SQLite.
        #expect(watching.notifier.revision(of: "shelf").revision == 2)

        // The catalogue disappears (another connection deletes it): the sequence ends with a
        // typed error.
        try await other.writer.write { db in try db.execute(sql: "DELETE FROM catalog WHERE name = 'shelf'") }
        await #expect(throws: StoreError.unknownCatalog("shelf")) {
            try await iterator.observer.next(waitingAtMost: .seconds(10))
        }
    }

    /// The database file removed under a store that observes: observers are told (their sequence
    /// throws), never left waiting for writes they can no longer hear of.
    @Test func observersHearThatTheDatabaseWentAway() async throws {
        let (path, folder) = try temporaryDatabasePath()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try CatalogStore(path: path)
        try store.replace(Self.shelves)
        let observer = store.observer(of: "shelf")
        #expect(try await observer.next(waitingAtMost: .seconds(10))?.revision == 1)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        await #expect {
            _ = try await observer.next(waitingAtMost: .seconds(10))
        } throws: { error in
            guard case StoreError.cannotWatch(let watched, let reason) = error else { return false }
            return watched == path && reason.contains("gone")
        }
    }

    /// The poll cannot open the file at all (it went before anyone observed): the first
    /// observers are told rather than never hearing of another process's writes.
    @Test func aWatchThatCannotOpenReachesTheObservers() async throws {
        let (path, folder) = try temporaryDatabasePath()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try CatalogStore(path: path)
        try store.replace(Self.shelves)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let observer = store.observer(of: "shelf", from: 1)
        await #expect(throws: StoreError.self) {
            // At once, or once the poll has tried: never a wait that ends in silence.
            _ = try await observer.next(waitingAtMost: .seconds(10))
        }
    }

    @Test func aRolledBackWriteIsNeverSeen() async throws {
        let (path, folder) = try temporaryDatabasePath()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try CatalogStore(path: path)
        try store.replace(Self.shelves)
        let observer = store.observer(of: "shelf", from: 1)
        // A refused batch (a full shelf after a move that went through) rolls back whole.
        await #expect(throws: StoreError.self) {
            try await store.apply(Batch(operations: [.moveItem(id: "b0", toSection: "a", index: 0, policy: .reject),
                                               .insertItem(section: "a", index: 0, item: Self.books("x", 1)[0])]), to: "shelf")
        }
        // Another connection raises the revision, then rolls back.
        let other = try DatabaseQueue(path: path)
        _ = try? await other.write { db in
            try db.execute(sql: "UPDATE catalog SET revision = revision + 1")
            throw StoreError.unknownCatalog("rolled back on purpose")
        }
        #expect(try await observer.next(waitingAtMost: .milliseconds(100)) == nil)
        try Self.move(store, "a0", to: "b", index: 0)
        let update = try #require(try await observer.next(waitingAtMost: .seconds(10)))
        #expect(update.changeset?.fromRevision == 1 && update.revision == 2)
        try Self.check(update, after: Self.shelves.with(revision: 1))
    }

    @Test func oneWriteWakesAHundredObserversWithoutAHundredLookups() async throws {
        let (path, folder) = try temporaryDatabasePath()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try CatalogStore(path: path)
        try store.replace(Self.shelves)
        let observers = (0..<100).map { _ in store.observer(of: "shelf", from: 1) }
        for observer in observers {
            #expect(try await observer.next(waitingAtMost: .zero) == nil)
        }
        let before = store.revisions.lookUps
        try Self.move(store, "a0", to: "b", index: 0)
        let updates = try await withThrowingTaskGroup(of: CatalogUpdate?.self) { group in
            for observer in observers {
                group.addTask { try await observer.next(waitingAtMost: .seconds(10)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(updates.count == 100 && updates.allSatisfy { $0?.revision == 2 && $0 == updates[0] })
        // The write told the observers its revision; the poll may ask once more.
        #expect(store.revisions.lookUps - before <= 2)
    }
}

extension Catalog {
    func with(revision: Int) -> Catalog {
        var copy = self
        copy.revision = revision
        return copy
    }
}

extension ObservationTests {
    @Test func manyObserversKeepUpWithAsyncWrites() async throws {
        let (path, folder) = try temporaryDatabasePath()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try CatalogStore(path: path)
        try store.replace(Self.shelves)
        let last = 1 + 100
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<10 {
                let updates = store.updates(of: "shelf", from: 1)
                group.addTask {
                    var count = 0
                    for try await update in updates {
                        count += 1
                        if update.revision >= last { break }
                    }
                    return count
                }
            }
            for i in 0..<100 {
                try await store.move(item: "a0", toSection: "a", index: i % 2 == 0 ? 2 : 0, in: "shelf")
            }
            for try await count in group { #expect(count >= 1) }
        }
    }
}
