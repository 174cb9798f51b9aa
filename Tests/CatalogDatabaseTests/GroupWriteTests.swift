import CatalogModel
import CatalogStore
import CatalogTestSupport
import PostgresNIO
import Testing
@testable import CatalogPostgres

/// A combined write checks what its batches read as it commits, part by part: another
/// instance's write between its read and its write leaves out only the parts that read what
/// that write changed, and the rest commits with contiguous revisions.
@Suite(.enabled(if: TestPostgres.url != nil, "needs PostgreSQL"))
struct GroupWriteTests {
    /// Four shelves of capacity 2: s0 [a0, a1], s1 [b0], s2 [c0], s3 [].
    static let start = Catalog(name: "shelf", sections: [
        Section(id: "s0", kind: .bookshelf, capacity: 2, items: CatalogDatabaseTests.books("a", 2)),
        Section(id: "s1", kind: .bookshelf, capacity: 2, items: CatalogDatabaseTests.books("b", 1)),
        Section(id: "s2", kind: .bookshelf, capacity: 2, items: CatalogDatabaseTests.books("c", 1)),
        Section(id: "s3", kind: .bookshelf, capacity: 2),
    ])

    static func move(_ id: String, to section: String, at index: Int = 0, _ policy: MovePolicy = .reject) -> Batch {
        Batch(operations: [.moveItem(id: id, toSection: section, index: index, policy: policy)])
    }

    static func book(_ id: String) -> Item {
        Item(id: id, content: .book(Book(title: id, cover: "\(id).jpg")))
    }

    /// On a new database, edits `batches` through a first store as one group, lets `interleave`
    /// write through a second store (another instance), then writes the group; then `check`s
    /// its answers, the revision of the import and the catalogue stored, with the first store.
    static func group(_ batches: [Batch], interleaving interleave: @escaping @Sendable (PostgresCatalogStore) async throws -> Void,
                      check: ([Result<WriteResult, StoreError>?], Int, Catalog, PostgresCatalogStore) async throws -> Void) async throws {
        try await TestPostgres.withNewDatabase { url, _ in
            let first = try await PostgresCatalogStore.open(url: url, maximumConnections: 2)
            defer { first.close() }
            let second = try await PostgresCatalogStore.open(url: url, maximumConnections: 2)
            defer { second.close() }
            let imported = try await first.replace(start).revision
            let (keys, logger) = (CatalogKeys(), first.logger)
            let answers = try await first.withConnection { connection -> [Result<WriteResult, StoreError>?] in
                let edited = try await PostgresCatalogStore.editGroup(batches, of: "shelf", locked: false, keys: keys, on: connection, logger: logger)
                guard case .edited(let group)? = edited else { throw StoreError.database("the group was not edited: \(String(describing: edited))") }
                try await interleave(second)
                guard let answers = try await PostgresCatalogStore.write(group, on: connection, logger: logger) else {
                    throw StoreError.database("the group asked for the lock")
                }
                return answers
            }
            try await check(answers, imported, try await second.catalog(named: "shelf"), first)
        }
    }

    @Test func aPartWhoseShelfAnotherInstanceChangedIsLeftOutAndTheRestCommits() async throws {
        let batches = [
            Self.move("a0", to: "s3"),   // part 0: s0, s3
            Self.move("b0", to: "s2"),   // part 1: s1, s2 — the other instance writes s2
            Self.move("a1", to: "s3"),   // part 0 again: s0, s3
        ]
        try await Self.group(batches, interleaving: { second in
            _ = try await second.move(item: "c0", toSection: "s2", index: 0, policy: .reject, in: "shelf")   // changes nothing
            _ = try await second.apply(Batch(operations: [.insertItem(section: "s2", index: 1, item: Self.book("d0"))]), to: "shelf")
        }) { answers, imported, stored, first in
            // The other instance's insert is imported + 1; the first and third moves follow it.
            let kept = try answers[0]!.get(), third = try answers[2]!.get()
            #expect(answers[1] == nil)
            #expect((kept.previousRevision, kept.revision, third.previousRevision, third.revision)
                    == (imported + 1, imported + 2, imported + 2, imported + 3))
            #expect(kept.changeset.fromRevision == kept.previousRevision && kept.changeset.toRevision == kept.revision)
            #expect(stored.revision == imported + 3)
            #expect(stored.sections.map { $0.items.map(\.id) } == [[], ["b0"], ["c0", "d0"], ["a1", "a0"]])
            try await first.checkIntegrity()
            let changes = try await first.changes(in: "shelf", since: imported)
            #expect(changes.violations(from: Self.start.with(revision: imported), to: stored) == [])
        }
    }

    @Test func anInsertOfAnIDAnotherInstanceTookIsLeftOut() async throws {
        let batches = [
            Batch(operations: [.insertItem(section: "s3", index: 0, item: Self.book("new"))]),   // reads "new" as absent
            Self.move("b0", to: "s0", at: 0, .displace),   // s1, s0 — and s1 again, where a1 goes
        ]
        try await Self.group(batches, interleaving: { second in
            _ = try await second.apply(Batch(operations: [.insertItem(section: "s2", index: 0, item: Self.book("new"))]), to: "shelf")
        }) { answers, imported, stored, first in
            #expect(answers[0] == nil)
            let moved = try answers[1]!.get()
            #expect((moved.previousRevision, moved.revision) == (imported + 1, imported + 2))
            #expect(stored.sections.map { $0.items.map(\.id) } == [["b0", "a0"], ["a1"], ["new", "c0"], []])
            try await first.checkIntegrity()
        }
    }

    @Test func aSectionChangeByAnotherInstanceLeavesOutThePartsThatReadIt() async throws {
        let batches = [Self.move("c0", to: "s1"), Self.move("a0", to: "s3")]
        try await Self.group(batches, interleaving: { second in
            // A section operation: lowers s1's capacity, so the first move would now overfill it.
            _ = try await second.apply(Batch(operations: [.updateSection(id: "s1", fields: SectionFields(capacity: 1))]), to: "shelf")
        }) { answers, imported, stored, first in
            #expect(answers[0] == nil)
            let moved = try answers[1]!.get()
            #expect(moved.revision == imported + 2)
            #expect(stored.sections.map { $0.items.map(\.id) } == [["a1"], ["b0"], ["c0"], ["a0"]])
            try await first.checkIntegrity()
        }
    }

    @Test func aGroupWhoseReadsAllHoldIsWrittenWhole() async throws {
        let batches = [Self.move("a0", to: "s3"), Self.move("b0", to: "s3", at: 1), Self.move("c0", to: "s3")]
        try await Self.group(batches, interleaving: { second in
            _ = try await second.move(item: "a1", toSection: "s0", index: 1, policy: .reject, in: "shelf")   // changes nothing
        }) { answers, imported, stored, first in
            let (moved, next) = (try answers[0]!.get(), try answers[1]!.get())
            #expect((moved.revision, next.revision) == (imported + 1, imported + 2))
            // The third found s3 full.
            guard case .failure(.rejected)? = answers[2] else { Issue.record("expected a refusal, got \(String(describing: answers[2]))"); return }
            #expect(stored.sections.map { $0.items.map(\.id) } == [["a1"], [], ["c0"], ["a0", "b0"]])
        }
    }

    /// A book displaced past the last shelf reads that no section follows: what the batch did
    /// then depends on every section, which only the catalogue's lock makes sure of. The group
    /// asks for it, and through the store the batches come out as in memory.
    @Test func aDisplacementPastTheLastShelfTakesTheLock() async throws {
        let batches = [Self.move("a0", to: "s3"), Self.move("a1", to: "s3"), Self.move("b0", to: "s3", at: 0, .displace)]
        try await TestPostgres.withNewDatabase { url, _ in
            let store = try await PostgresCatalogStore.open(url: url, maximumConnections: 2)
            defer { store.close() }
            _ = try await store.replace(Self.start)
            let logger = store.logger
            let edited = try await store.withConnection { connection in
                try await PostgresCatalogStore.editGroup(batches, of: "shelf", locked: false, keys: CatalogKeys(), on: connection, logger: logger)
            }
            #expect(edited == nil, "the group was edited without the lock")
            var expected = Self.start
            for batch in batches {
                let inMemory = Result { () throws(BatchError) in try expected.applying(batch) }
                let stored: Result<WriteResult, StoreError>
                do throws(StoreError) { stored = .success(try await store.apply(batch, to: "shelf")) } catch { stored = .failure(error) }
                switch (inMemory, stored) {
                case (.success(let next), .success): expected = next
                case (.failure, .failure(.rejected)): break
                default: Issue.record("in memory \(inMemory), stored \(stored)")
                }
            }
            #expect(try await store.catalog(named: "shelf").sections == expected.sections)
            try await store.checkIntegrity()
        }
    }

    /// An instance of a version before section versions, still running after a newer one
    /// migrated the database, writes the way it did — its rows and the revision in one
    /// statement, checking only the revision — which would slip past the checks of the others'
    /// group writes. Its write fails whole instead.
    @Test func aWriteOfAnInstanceOlderThanTheSchemaFailsWhole() async throws {
        try await TestPostgres.withNewDatabase { url, connection in
            let store = try await PostgresCatalogStore.open(url: url, maximumConnections: 2)
            defer { store.close() }
            let imported = try await store.replace(Self.start)
            let older = PostgresQuery(unsafeSQL: """
                WITH raised AS (
                    UPDATE catalog SET revision = revision + 1 WHERE name = 'shelf' AND revision = \(imported.revision) RETURNING pk
                )
                DELETE FROM item WHERE id = 'a0' AND catalog_pk IN (SELECT pk FROM raised)
                """)
            await #expect {
                try await connection.query(older, logger: TestPostgres.logger)
            } throws: { error in
                String(reflecting: error).contains("older than the database's schema")
            }
            #expect(try await store.catalog(named: "shelf") == Self.start.with(revision: imported.revision))
            // This version's writes go on.
            let moved = try await store.move(item: "a0", toSection: "s3", index: 0, policy: .reject, in: "shelf")
            #expect(moved.revision == imported.revision + 1)
        }
    }
}
