import CatalogDiff
import CatalogModel
import CatalogPostgres
import CatalogStore
import CatalogTestSupport
import Foundation
import PostgresNIO
import Testing

/// Writes through one handle reach observers of the other (another process, another
/// `catalog serve` instance): every revision, in order, each update a changeset that takes the
/// observer's copy to the new snapshot; a deleted catalogue ends the observation.
@Suite struct CrossInstanceObservationTests {
    static let shelves = Catalog(name: "shelf", sections: [
        Section(id: "a", kind: .bookshelf, capacity: 3, items: CatalogDatabaseTests.books("a", 2)),
        Section(id: "b", kind: .bookshelf, capacity: 3, items: CatalogDatabaseTests.books("b", 2)),
    ])

    /// Moves a book back and forth `count` times through `store`.
    static func shuffle(_ store: any CatalogDatabase, _ count: Int, round: Int = 0) async throws {
        for n in 0..<count {
            let (book, shelf) = (n + round) % 2 == 0 ? ("a0", "b") : ("a0", "a")
            try await store.move(item: book, toSection: shelf, index: 0, in: "shelf")
        }
    }

    /// Follows `observer` from `model` until it reaches `revision`: each update must start where
    /// the last ended and replay to its snapshot.
    static func follow(_ observer: CatalogObserver, from model: Catalog, to revision: Int) async throws -> Catalog {
        var model = model
        while model.revision < revision {
            let update = try #require(try await observer.next(waitingAtMost: .seconds(60)), "no update past revision \(model.revision)")
            let changeset = try #require(update.changeset, "a reset at revision \(update.revision)")
            #expect(changeset.fromRevision == model.revision)
            #expect(changeset.violations(from: model, to: update.catalog) == [])
            model = update.catalog
        }
        #expect(model.revision == revision)
        return model
    }

    @Test(arguments: Backend.available)
    func writesOnOneHandleReachObserversOfTheOther(backend: Backend) async throws {
        try await withTwoHandles(backend) { writer, reader in
            try await writer.replace([(Self.shelves, nil)], progress: nil)
            let observer = reader.observer(of: "shelf", from: 1, resetThreshold: 10_000)
            try await Self.shuffle(writer, 20)
            let model = try await Self.follow(observer, from: Self.shelves.with(revision: 1), to: 21)
            #expect(model == (try await writer.catalog(named: "shelf")))
            _ = try await writer.delete([("shelf", nil)])
            await #expect(throws: StoreError.unknownCatalog("shelf")) { try await observer.next(waitingAtMost: .seconds(60)) }
        }
    }

    /// Observers that ask at different moments, each at a revision of its own, across every kind
    /// of write through the other handle (moves, retitles, inserts, deletes, a shelf retitled, a
    /// shelf added): each update starts where the observer was and takes its copy to the new
    /// snapshot with every changed content reloaded (the simulator's rules), and all end at the
    /// stored catalogue.
    @Test(arguments: Backend.available)
    func observersOutOfStepGetEveryChange(backend: Backend) async throws {
        try await withTwoHandles(backend) { writer, reader in
            let shelves = (0..<6).map { s in
                Section(id: "s\(s)", kind: .bookshelf, capacity: 6, items: CatalogDatabaseTests.books("s\(s)-", 3))
            }
            try await writer.replace([(Catalog(name: "shelf", sections: shelves), nil)], progress: nil)
            var models = Array(repeating: try await reader.catalog(named: "shelf"), count: 3)
            let observers = models.map { reader.observer(of: "shelf", from: $0.revision, resetThreshold: 10_000) }
            var random = SplitMix64(seed: 7)
            var added = 0
            for round in 0..<60 {
                let current = try await writer.catalog(named: "shelf")
                let items = current.sections.flatMap { section in section.items.map { ($0.id, section.id) } }
                let section = current.sections.randomElement(using: &random)!
                let operation: BatchOperation
                switch Int.random(in: 0..<7, using: &random) {
                case 0, 1:
                    let (item, _) = items.randomElement(using: &random)!
                    operation = .moveItem(id: item, toSection: section.id, index: Int.random(in: 0...section.items.count, using: &random),
                                          policy: [.reject, .displace, .swap].randomElement(using: &random)!)
                case 2:
                    operation = .updateItem(id: items.randomElement(using: &random)!.0, fields: ItemFields(title: "retitled \(round)"))
                case 3:
                    added += 1
                    operation = .insertItem(section: section.id, index: 0, item: Item(id: "new\(added)", content: .book(Book(title: "New", cover: "n"))))
                case 4:
                    operation = .deleteItem(id: items.randomElement(using: &random)!.0)
                case 5:
                    operation = .updateSection(id: section.id, fields: SectionFields(title: "shelf \(round)"))
                default:
                    added += 1
                    operation = .insertSection(index: 0, section: Section(id: "t\(added)", kind: .bookshelf, capacity: 6,
                                                                          items: CatalogDatabaseTests.books("t\(added)-", 1)))
                }
                do {
                    _ = try await writer.apply(Batch(operations: [operation]), to: "shelf")
                } catch StoreError.rejected {
                    continue   // a full shelf, an empty catalogue of items: nothing written
                }
                // Each observer catches up now and then, so they stand at revisions of their own.
                let revision = try await writer.revision(of: "shelf")
                for i in observers.indices where Bool.random(using: &random) {
                    models[i] = try await Self.follow(observers[i], from: models[i], to: revision)
                }
            }
            let stored = try await writer.catalog(named: "shelf")
            for i in observers.indices {
                models[i] = try await Self.follow(observers[i], from: models[i], to: stored.revision)
                #expect(models[i] == stored)
            }
        }
    }

    /// A read after another instance's moves brings the catalogue kept from an earlier read
    /// forward through the journal instead of reading it whole: it is the stored catalogue, and
    /// the shelves no move touched are the very storage the earlier read returned.
    @Test(.enabled(if: TestPostgres.url != nil, "needs PostgreSQL"))
    func aReadAfterAnotherInstancesMovesReadsOnlyTheShelvesTheyChanged() async throws {
        try await withTwoHandles(.postgres) { writer, reader in
            let shelves = (0..<6).map { s in
                Section(id: "s\(s)", kind: .bookshelf, capacity: 6, items: CatalogDatabaseTests.books("s\(s)-", 3))
            }
            try await writer.replace([(Catalog(name: "shelf", sections: shelves), nil)], progress: nil)
            let before = try await reader.catalog(named: "shelf")
            try await writer.move(item: "s0-0", toSection: "s1", index: 0, in: "shelf")
            try await writer.move(item: "s1-2", toSection: "s2", index: 1, in: "shelf")
            let after = try await reader.catalog(named: "shelf")
            #expect(after == (try await writer.catalog(named: "shelf")))
            func storage(_ section: Section) -> UnsafeRawPointer? { section.items.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) } }
            for s in 3..<6 {
                #expect(storage(after.sections[s]) == storage(before.sections[s]), "shelf s\(s) was read again")
            }
        }
    }

    /// The listener's connection (and the pool's) cut by the server: the store connects again,
    /// and its observers go on from where they were, with nothing missed.
    @Test(.enabled(if: TestPostgres.url != nil, "needs PostgreSQL"))
    func observersGoOnAfterTheServerDropsTheirConnections() async throws {
        try await withTwoHandles(.postgres) { writer, reader in
            try await writer.replace([(Self.shelves, nil)], progress: nil)
            let observer = reader.observer(of: "shelf", from: 1, resetThreshold: 10_000)
            try await Self.shuffle(writer, 5)
            var model = try await Self.follow(observer, from: Self.shelves.with(revision: 1), to: 6)
            // Every connection of the database ends, the listener's among them.
            let database = try #require(URLComponents(string: reader.location)?.path.dropFirst())
            try await TestPostgres.admin { connection in
                try await connection.query("""
                    SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = \(String(database)) AND pid <> pg_backend_pid()
                    """, logger: TestPostgres.logger)
            }
            // Writes right after: a pooled connection that the server cut fails a request once.
            var written = 0
            for attempt in 0..<50 where written < 5 {
                do {
                    try await Self.shuffle(writer, 1, round: written + 1)   // a0 is on shelf b: first back to a
                    written += 1
                } catch StoreError.unavailable {
                    #expect(attempt < 49)
                }
            }
            model = try await Self.follow(observer, from: model, to: 11)
            #expect(model == (try await writer.catalog(named: "shelf")))
        }
    }

    /// A listener whose server stops answering without closing the connection (its backend
    /// stopped with SIGSTOP): the observers still get every revision, through the pool, and the
    /// listener's connection is closed and made again once it has read nothing for five of its
    /// intervals.
    @Test(.enabled(if: TestPostgres.url != nil, "needs PostgreSQL"))
    func aListenerWhoseServerStopsAnsweringConnectsAgain() async throws {
        try await withTwoHandles(.postgres) { writer, reader in
            try await writer.replace([(Self.shelves, nil)], progress: nil)
            let observer = reader.observer(of: "shelf", from: 1, resetThreshold: 10_000)
            try await Self.shuffle(writer, 1)
            var model = try await Self.follow(observer, from: Self.shelves.with(revision: 1), to: 2)

            let database = String(try #require(URLComponents(string: reader.location)?.path.dropFirst()))
            @Sendable func listeners() async throws -> [Int32] {
                var pids: [Int32] = []
                try await TestPostgres.admin { connection in
                    for try await pid in try await connection.query("""
                        SELECT pid FROM pg_stat_activity WHERE datname = \(database) AND application_name = \(PostgresCatalogStore.listenerName)
                        """, logger: TestPostgres.logger).decode(Int32.self) { pids.append(pid) }
                }
                return pids
            }
            let stopped = try await listeners()
            try #require(!stopped.isEmpty)
            for pid in stopped { #expect(kill(pid, SIGSTOP) == 0) }
            defer { for pid in stopped { kill(pid, SIGCONT) } }

            try await Self.shuffle(writer, 3, round: 1)
            model = try await Self.follow(observer, from: model, to: 5)
            var fresh: [Int32] = []
            // The stand-in closes a listener silent for 5 s within about 11 s: ten times that.
            let patience = ContinuousClock.now + .seconds(120)
            while fresh.isEmpty && ContinuousClock.now < patience {
                try await Task.sleep(for: .milliseconds(100))
                fresh = try await listeners().filter { !stopped.contains($0) }
            }
            #expect(!fresh.isEmpty, "no listener connected again")
            try await Self.shuffle(writer, 1, round: 0)
            model = try await Self.follow(observer, from: model, to: 6)
            #expect(model == (try await writer.catalog(named: "shelf")))
        }
    }
}
