import CatalogDiff
import CatalogModel
import CatalogStore
import CatalogTestSupport
import Foundation
import Testing

/// The store's contract (docs/Batches-and-moves.md), on every backend: the same outcome as the
/// rules applied in memory, one revision per write that changes something and none otherwise, a
/// refused write that leaves the database as it was, a changeset that replays to the new
/// snapshot, a journal that rebuilds earlier revisions.
@Suite struct CatalogDatabaseTests {
    static func books(_ prefix: String, _ count: Int) -> [Item] {
        (0..<count).map { Item(id: "\(prefix)\($0)", content: .book(Book(title: "\(prefix) \($0)", cover: "\(prefix)\($0)"))) }
    }

    static let shelves = Catalog(name: "shelf", sections: [
        Section(id: "a", kind: .bookshelf, capacity: 2, items: books("a", 2)),
        Section(id: "b", kind: .bookshelf, capacity: 2, items: books("b", 1)),
    ])

    @Test(arguments: Backend.available, 0..<4)
    func randomSequencesMatchTheRulesInMemory(backend: Backend, batch: Int) async throws {
        try await withDatabase(backend) { store in
            var random = RandomEdits(seed: UInt64(900 + batch))
            var accepted = 0, refused = 0
            for round in 0..<250 {
                var expected = random.catalog()
                expected.name = "shelf\(round)"
                expected.revision = try await store.replace(expected).revision
                let first = expected
                for _ in 0..<random.int(1...5) {
                    let operations = (0..<(random.chance(25) ? random.int(2...4) : 1)).map { _ in random.operation(on: expected) }
                    let base = random.chance(90) ? expected.revision : expected.revision - 1
                    let batch = Batch(baseRevision: base, operations: operations)
                    let inMemory: Result<Catalog, BatchError> = Result { () throws(BatchError) in try expected.applying(batch) }
                    do {
                        let result = try await store.apply(batch, to: expected.name)
                        let next = try inMemory.get()
                        let stored = try await store.catalog(named: expected.name)
                        #expect(stored == next, "\(operations)")
                        let raised = next == expected ? 0 : 1
                        #expect(result.revision == expected.revision + raised && result.previousRevision == expected.revision)
                        #expect(result.changeset.violations(from: expected, to: stored) == [], "\(operations)")
                        expected = stored
                        accepted += 1
                    } catch StoreError.rejected(_, let error) {
                        guard case .failure(let memoryError) = inMemory else {
                            Issue.record("the store refused \(operations) with \(error); in memory it applies")
                            return
                        }
                        #expect(error == memoryError)
                        #expect(try await store.catalog(named: expected.name) == expected, "a refused batch changes nothing")
                        refused += 1
                    }
                }
                if expected.revision > first.revision {
                    let changes = try await store.changes(in: expected.name, since: first.revision)
                    #expect(changes.violations(from: first, to: expected) == [])
                }
            }
            try await store.checkIntegrity()
            #expect(accepted > 150 && refused > 50, "accepted \(accepted), refused \(refused)")
        }
    }

    @Test(arguments: Backend.available)
    func aMoveBetweenShelvesAndAFullShelf(backend: Backend) async throws {
        try await withDatabase(backend) { store in
            try await store.replace(Self.shelves)
            let moved = try await store.move(item: "a0", toSection: "b", index: 1, in: "shelf")
            #expect(moved.revision == 2)
            #expect(moved.changeset.stages.flatMap(\.items.moved) == [Move(from: ItemPath(section: 0, item: 0), to: ItemPath(section: 1, item: 1))])
            #expect(try await store.catalog(named: "shelf").sections.map { $0.items.map(\.id) } == [["a1"], ["b0", "a0"]])
            await #expect {
                try await store.move(item: "a1", toSection: "b", index: 0, in: "shelf")
            } throws: { error in
                (error as? StoreError)?.description == #"catalogue "shelf": operation 0 (moveItem): shelf "b" is full: it holds at most 2 books"#
            }
            #expect(try await store.revision(of: "shelf") == 2)
            await #expect {
                try await store.move(item: "a1", toSection: "b", index: 0, in: "shelf", baseRevision: 1)
            } throws: { error in
                guard case StoreError.rejected(_, let batchError)? = error as? StoreError else { return false }
                return batchError.reason == .staleRevision(base: 1, current: 2)
            }
            await #expect(throws: StoreError.unknownCatalog("nope")) {
                try await store.move(item: "a1", toSection: "b", index: 0, in: "nope")
            }
            // Displace: the full shelf's last book goes on to the next shelf with room.
            var three = try await store.catalog(named: "shelf")
            three.sections.append(Section(id: "c", kind: .bookshelf, capacity: 2))
            let replaced = try await store.replace(three)
            let displaced = try await store.move(item: "a1", toSection: "b", index: 0, policy: .displace, in: "shelf")
            #expect(displaced.revision == replaced.revision + 1)
            let now = try await store.catalog(named: "shelf")
            #expect(now.sections.map { $0.items.map(\.id) } == [[], ["a1", "b0"], ["a0"]])
            #expect(displaced.changeset.violations(from: three.with(revision: replaced.revision), to: now) == [])
            try await store.checkIntegrity()
        }
    }

    @Test(arguments: Backend.available)
    func theJournalOfAMoveKeepsAwkwardIDs(backend: Backend) async throws {
        try await withDatabase(backend) { store in
            let awkward = ["quote\"d", "back\\slash", "new\nline", "tab\tand\u{01}control", "été", "📚 books", "slash/and,comma", "it's"]
            let shelves = Catalog(name: "shelf ☃ \"q\"", sections: [
                Section(id: "a \"one\"", kind: .bookshelf, capacity: 10,
                        items: awkward.map { Item(id: $0, content: .book(Book(title: $0, cover: $0))) }),
                Section(id: "b\\two", kind: .bookshelf, capacity: 10),
            ])
            try await store.replace(shelves)
            for id in awkward.reversed() {
                try await store.move(item: id, toSection: "b\\two", index: 0, in: shelves.name)
            }
            let now = try await store.catalog(named: shelves.name)
            #expect(now.sections[1].items.map(\.id) == awkward)
            let changes = try await store.changes(in: shelves.name, since: 1)
            #expect(changes.violations(from: shelves, to: now) == [])
            #expect(changes.stages.flatMap(\.items.moved).count == awkward.count)
            #expect(try await store.summaries().map(\.name) == [shelves.name])
        }
    }

    /// A section deleted and inserted again in one batch, with items leaving it first.
    @Test(arguments: Backend.available, [["replaced 1", "replaced 2"], []])
    func aReplacedSection(backend: Backend, others: [String]) async throws {
        try await withDatabase(backend) { store in
            let books = Self.books("b", 3)
            let catalog = Catalog(name: "shelf", sections: [Section(id: "a", kind: .bookshelf, capacity: 10, items: books)]
                                  + others.map { Section(id: $0, kind: .bookshelf, capacity: 10) })
            try await store.replace(catalog)
            let result = try await store.apply(Batch(operations: [
                .moveItem(id: "b1", toSection: others.first ?? "a", index: 0),
                .deleteSection(id: "a"),
                .insertSection(index: 0, section: Section(id: "a", kind: .bookshelf, title: "New", capacity: 5, items: [books[2]])),
                .insertSection(index: 1, section: Section(id: "replaced 3", kind: .bookshelf, capacity: 5)),
            ]), to: "shelf")
            let now = try await store.catalog(named: "shelf")
            #expect(now.sections.map(\.id) == ["a", "replaced 3"] + others)
            #expect(now.sections[0].items.map(\.id) == ["b2"] && now.sections[0].title == "New")
            if let first = others.first { #expect(now.sections[2].items.map(\.id) == ["b1"] && first == now.sections[2].id) }
            #expect(result.revision == 2)
            try await store.checkIntegrity()
            let changes = try await store.changes(in: "shelf", since: 1)
            #expect(changes.violations(from: catalog, to: now) == [])
        }
    }

    @Test(arguments: Backend.available)
    func importsAreAllOrNothing(backend: Backend) async throws {
        try await withDatabase(backend) { store in
            let first = try await store.replace(Self.shelves)
            #expect(first.previousRevision == 0 && first.revision == 1)
            #expect(first.changeset.violations(from: Catalog(name: "shelf"), to: Self.shelves.with(revision: 1)) == [])
            var broken = Self.shelves
            broken.name = "other"
            broken.sections[0].items.append(broken.sections[1].items[0])   // one id twice
            await #expect(throws: StoreError.self) {
                try await store.replace([(Self.shelves, nil), (broken, nil)], progress: nil)
            }
            await #expect(throws: StoreError.catalogNamedTwice("shelf", sources: ["x.json", "y.json"])) {
                try await store.replace([(Self.shelves, ImportRecord(source: "x.json", format: "json", shape: "native")),
                                         (Self.shelves, ImportRecord(source: "y.json", format: "json", shape: "native"))], progress: nil)
            }
            #expect(try await store.summaries() == [CatalogSummary(name: "shelf", revision: 1, sections: 2, items: 3)])
            // A big one, across several statements, replacing the first.
            let big = Catalog.generated(name: "shelf", items: 12_000, sections: 40, kind: .bookshelf)
            var reported: [Int] = []
            let results = try await store.replace([(big, ImportRecord(source: "big.json", format: "json", shape: "native"))]) { written, total in
                reported.append(written)
                #expect(total == 12_000)
            }
            #expect(results.map(\.revision) == [2])
            #expect(reported.last == 12_000)
            #expect(try await store.catalog(named: "shelf") == big.with(revision: 2))
            #expect(results[0].changeset.violations(from: Self.shelves.with(revision: 1), to: big.with(revision: 2)) == [])
            try await store.checkIntegrity()
        }
    }

    @Test(arguments: Backend.available)
    func deletingAndUsingANameAgain(backend: Backend) async throws {
        try await withDatabase(backend) { store in
            try await store.replace(Self.shelves)
            let other = Catalog(name: "other", sections: [Section(id: "x", kind: .icons, items: [Item(id: "i", content: .icon(Icon(name: "I", icon: "i")))])])
            try await store.replace(other)
            try await store.move(item: "a0", toSection: "b", index: 0, in: "shelf")  // revision 2
            await #expect(throws: StoreError.unknownCatalog("nope")) { try await store.delete("nope") }
            await #expect(throws: StoreError.rejected(catalog: "shelf", BatchError(reason: .staleRevision(base: 1, current: 2)))) {
                try await store.delete("shelf", ifRevision: 1)
            }
            await #expect(throws: StoreError.unknownCatalog("nope")) { try await store.delete([("shelf", nil), ("nope", nil)]) }
            #expect(try await store.revision(of: "shelf") == 2)
            let deleted = try await store.delete("shelf", ifRevision: 2)
            #expect(deleted == DeletedCatalog(name: "shelf", revision: 2, sections: 2, items: 3))
            await #expect(throws: StoreError.unknownCatalog("shelf")) { try await store.catalog(named: "shelf") }
            #expect(try await store.summaries().map(\.name) == ["other"])
            let again = try await store.replace(other.renamed("shelf"))
            #expect(again.previousRevision == 3 && again.revision == 4)
            await #expect(throws: StoreError.revisionTooOld(catalog: "shelf", requested: 2, oldest: 3)) {
                try await store.changes(in: "shelf", since: 2)
            }
            let changes = try await store.changes(in: "shelf", since: 3)
            #expect(changes.fromRevision == 3 && changes.toRevision == 4)
            try await store.checkIntegrity()
        }
    }

    @Test(arguments: Backend.available)
    func theJournalKeepsWhatTheSettingSays(backend: Backend) async throws {
        try await withDatabase(backend) { store in
            #expect(try await store.journalRevisions() == CatalogStore.defaultJournalRevisions)
            for bad in [0, -5, CatalogStore.journalRevisionsRange.upperBound + 1] {
                await #expect(throws: StoreError.self) { try await store.setJournalRevisions(bad) }
            }
            try await store.setJournalRevisions(10)
            #expect(try await store.journalRevisions() == 10)
            var catalog = Catalog.generated(name: "small", items: 3, sections: 1, kind: .icons)
            let current = StoreRules.journalPruningInterval + 5
            for n in 0..<current {
                catalog.sections[0].title = "version \(n)"
                try await store.replace(catalog)
            }
            await #expect(throws: StoreError.revisionNotReached(catalog: "small", requested: current + 1, current: current)) {
                try await store.changes(in: "small", since: current + 1)
            }
            let oldest = StoreRules.journalPruningInterval - 10
            await #expect(throws: StoreError.revisionTooOld(catalog: "small", requested: oldest - 1, oldest: oldest)) {
                try await store.changes(in: "small", since: oldest - 1)
            }
            #expect(try await store.changes(in: "small", since: oldest).stages.flatMap(\.sections.reloaded) == [0])
            #expect(try await store.changes(in: "small", since: current).isEmpty)
            await #expect(throws: StoreError.unknownCatalog("nope")) { try await store.changes(in: "nope", since: 0) }
        }
    }
}

extension Catalog {
    func with(revision: Int) -> Catalog {
        var catalog = self
        catalog.revision = revision
        return catalog
    }

    func renamed(_ name: String) -> Catalog {
        var catalog = self
        catalog.name = name
        return catalog
    }
}
