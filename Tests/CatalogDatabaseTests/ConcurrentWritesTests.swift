import CatalogDiff
import CatalogModel
import CatalogStore
import CatalogTestSupport
import Testing

/// Writes from two handles on one database at once (two processes, two `catalog serve`
/// instances): no shelf ever over capacity, every book exactly once, one revision per write that
/// changed something — contiguous, none given twice — and a journal that rebuilds the start.
@Suite struct ConcurrentWritesTests {
    @Test(arguments: Backend.available)
    func movesFromTwoHandlesKeepEveryRule(backend: Backend) async throws {
        try await withTwoHandles(backend) { first, second in
            let shelves = (0..<6).map { s in
                Section(id: "s\(s)", kind: .bookshelf, capacity: 2,
                        items: s < 4 ? CatalogDatabaseTests.books("b\(s)-", 2) : [])
            }
            let start = Catalog(name: "shelf", sections: shelves)
            let imported = try await first.replace(start)
            let books = shelves.flatMap { $0.items.map(\.id) }
            let revisions = try await withThrowingTaskGroup(of: [Int].self) { group in
                for task in 0..<8 {
                    let store = task % 2 == 0 ? first : second
                    group.addTask {
                        var random = SplitMix64(seed: UInt64(77 + task))
                        var made: [Int] = []
                        for _ in 0..<30 {
                            let book = books[Int(random.next() % UInt64(books.count))]
                            let shelf = "s\(random.next() % 6)"
                            let policy = [MovePolicy.reject, .displace, .swap][Int(random.next() % 3)]
                            let index = Int(random.next() % 3)
                            do {
                                let result = try await store.move(item: book, toSection: shelf, index: index, policy: policy, in: "shelf")
                                if result.revision != result.previousRevision { made.append(result.revision) }
                            } catch StoreError.rejected {
                                // A full shelf, an index past the end: refused whole.
                            }
                        }
                        return made
                    }
                }
                var all: [Int] = []
                for try await made in group { all += made }
                return all
            }
            // Each revision given once, and together they are every revision after the import.
            let final = try await second.catalog(named: "shelf")
            #expect(revisions.sorted() == Array((imported.revision + 1)..<(final.revision + 1)))
            #expect(final.sections.flatMap { $0.items.map(\.id) }.sorted() == books.sorted())
            #expect(final.sections.allSatisfy { $0.items.count <= 2 })
            try await first.checkIntegrity()
            let changes = try await first.changes(in: "shelf", since: imported.revision)
            #expect(changes.violations(from: start.with(revision: imported.revision), to: final) == [])
            #expect(try await first.catalog(named: "shelf") == final)
        }
    }

    /// A handle that wrote a catalogue before another deleted it and made a new one under its
    /// name writes the new one (a PostgreSQL store keeps the row keys of the catalogues it
    /// wrote), and answers an unknown catalogue once it is gone.
    @Test(arguments: Backend.available)
    func aCatalogueMadeAgainByAnotherHandleIsTheOneWritten(backend: Backend) async throws {
        try await withTwoHandles(backend) { first, second in
            let shelves = [Section(id: "a", kind: .bookshelf, capacity: 3, items: CatalogDatabaseTests.books("a", 2)),
                           Section(id: "b", kind: .bookshelf, capacity: 3, items: CatalogDatabaseTests.books("b", 2))]
            let imported = try await first.replace(Catalog(name: "shelf", sections: shelves))
            // A batch with no operation reads nothing but the revision, before and after the key is known.
            #expect(try await second.apply(Batch(operations: []), to: "shelf").revision == imported.revision)
            let moved = try await first.move(item: "a0", toSection: "b", index: 0, policy: .reject, in: "shelf")
            #expect(try await first.apply(Batch(operations: []), to: "shelf").revision == moved.revision)

            _ = try await second.delete([(name: "shelf", ifRevision: nil)])
            let again = try await second.replace(Catalog(name: "shelf", sections: shelves.reversed()))
            #expect(again.revision > moved.revision)
            let after = try await first.move(item: "b1", toSection: "a", index: 0, policy: .reject, in: "shelf")
            #expect(after.previousRevision == again.revision)
            let stored = try await second.catalog(named: "shelf")
            #expect(stored.sections.map(\.id) == ["b", "a"])
            #expect(stored.sections.map { $0.items.map(\.id) } == [["b0"], ["b1", "a0", "a1"]])

            _ = try await second.delete([(name: "shelf", ifRevision: nil)])
            await #expect(throws: StoreError.unknownCatalog("shelf")) {
                try await first.move(item: "b0", toSection: "a", index: 0, policy: .reject, in: "shelf")
            }
            await #expect(throws: StoreError.unknownCatalog("shelf")) {
                try await first.apply(Batch(operations: []), to: "shelf")
            }
        }
    }

    /// Many writers at once, as a busy server's clients: moves and batches of moves that arrive
    /// together are written together (on PostgreSQL, in one statement), and still each is its
    /// own revision with its own changeset. Replayed in revision order, the answers' changesets
    /// rebuild the stored catalogue, and the simulator accepts each against the shapes around it.
    @Test(arguments: Backend.available)
    func eachOfManyWritesAtOnceAnswersItsOwnRevision(backend: Backend) async throws {
        try await withTwoHandles(backend) { first, second in
            let shelves = (0..<12).map { s in
                Section(id: "s\(s)", kind: .bookshelf, capacity: 3, items: CatalogDatabaseTests.books("b\(s)-", s % 3))
            }
            let start = Catalog(name: "shelf", sections: shelves)
            let imported = try await first.replace(start)
            let books = shelves.flatMap { $0.items.map(\.id) }
            let results = try await withThrowingTaskGroup(of: [WriteResult].self) { group in
                for task in 0..<32 {
                    let store = task % 2 == 0 ? first : second
                    group.addTask {
                        var random = SplitMix64(seed: UInt64(1_000 + task))
                        var made: [WriteResult] = []
                        for _ in 0..<8 {
                            func move() -> BatchOperation {
                                .moveItem(id: books[Int(random.next() % UInt64(books.count))], toSection: "s\(random.next() % 12)",
                                          index: Int(random.next() % 2), policy: [MovePolicy.reject, .displace, .swap][Int(random.next() % 3)])
                            }
                            let batch = Batch(operations: random.next() % 4 == 0 ? [move(), move()] : [move()])
                            do {
                                made.append(try await store.apply(batch, to: "shelf"))
                            } catch StoreError.rejected {
                                // Refused whole, alone: the others of its group go on.
                            }
                        }
                        return made
                    }
                }
                var all: [WriteResult] = []
                for try await made in group { all += made }
                return all
            }
            let written = results.filter { $0.revision != $0.previousRevision }.sorted { $0.revision < $1.revision }
            let final = try await second.catalog(named: "shelf")
            #expect(written.map(\.revision) == Array((imported.revision + 1)..<(final.revision + 1)))
            var shape = SnapshotShape(start.sections.map { ($0.id, $0.items.map(\.id)) })
            for result in written {
                #expect(result.previousRevision == result.revision - 1)
                #expect(result.changeset.fromRevision == result.previousRevision && result.changeset.toRevision == result.revision)
                let after = try #require(shape.applyingItemMoves(result.changeset), "revision \(result.revision)")
                #expect(BatchUpdateSimulator.violations(of: result.changeset, from: shape, to: after) == [], "revision \(result.revision)")
                shape = after
            }
            #expect(shape == SnapshotShape(final.sections.map { ($0.id, $0.items.map(\.id)) }))
            #expect(final.sections.allSatisfy { $0.items.count <= 3 })
            try await first.checkIntegrity()
        }
    }
}
