import CatalogDiff
import CatalogModel
import CatalogStore
import CatalogTestSupport
import Testing

/// Archives from one database restored into another, of either kind: the same catalogues at
/// the same revisions, journals that answer `changes(since:)` as the source's did, deleted
/// names' revisions carried along, and a catalogue already in the target refused unless replaced.
@Suite struct CopyTests {
    static var pairs: [(Backend, Backend)] {
        Backend.available.flatMap { from in Backend.available.map { (from, $0) } }
    }

    @Test(arguments: pairs)
    func aCopyResumesWhereTheSourceWas(from: Backend, to: Backend) async throws {
        try await withDatabase(from) { source in
            try await withDatabase(to) { target in
                let start = CrossInstanceObservationTests.shelves
                try await source.replace([(start, nil)], progress: nil)
                try await CrossInstanceObservationTests.shuffle(source, 5)                    // revisions 2…6
                try await source.replace([(start.renamed("gone"), nil)], progress: nil)
                _ = try await source.delete([("gone", nil)])
                let names = try await source.summaries().map(\.name)
                var archives: [CatalogArchive] = []
                for name in names { archives.append(try await source.archive(of: name)) }
                #expect(archives.map(\.journal.count) == [6])
                try await target.restore(archives, retired: try await source.retiredCatalogs(), replacing: false)

                #expect(try await target.catalog(named: "shelf") == (try await source.catalog(named: "shelf")))
                for since in [1, 3, 6] {
                    #expect(try await target.changes(in: "shelf", since: since) == (try await source.changes(in: "shelf", since: since)))
                }
                try await target.checkIntegrity()
                // Writes go on from the copied revision; a deleted name from its deleted revision.
                #expect(try await target.move(item: "a0", toSection: "a", index: 1, in: "shelf").revision == 7)
                #expect(try await target.replace([(start.renamed("gone"), nil)], progress: nil)[0].revision == 3)

                // Again without replacing: refused, and the target as it was.
                let before = try await target.catalog(named: "shelf")
                await #expect(throws: StoreError.catalogExists("shelf")) {
                    try await target.restore(archives, retired: [:], replacing: false)
                }
                #expect(try await target.catalog(named: "shelf") == before)
                try await target.restore(archives, retired: [:], replacing: true)
                #expect(try await target.revision(of: "shelf") == 6)
                try await target.checkIntegrity()
            }
        }
    }

    /// A whole copy carries the devices' numbered writes: a resend across the move is answered,
    /// not applied again, and the next number applies; a newer number in the target stays.
    @Test(arguments: pairs)
    func aCopyCarriesTheClientsNumbers(from: Backend, to: Backend) async throws {
        try await withDatabase(from) { source in
            try await withDatabase(to) { target in
                var catalog = CrossInstanceObservationTests.shelves
                for s in catalog.sections.indices { catalog.sections[s].capacity = 100 }
                try await source.replace([(catalog, nil)], progress: nil)
                let answer: @Sendable (WriteResult) -> RecordedAnswer = { RecordedAnswer(status: 200, body: "revision \($0.revision)") }
                func move(_ section: String) -> Batch {
                    Batch(operations: [.moveItem(id: "a0", toSection: section, index: 0, policy: .reject)])
                }
                for sequence in 1...3 {
                    _ = try await source.apply(move(sequence % 2 == 0 ? "a" : "b"), to: "shelf",
                                               as: ClientWrite(client: "phone", sequence: sequence, requestStart: 1), answer: answer)
                }
                _ = try await source.apply(move("a"), to: "shelf", as: ClientWrite(client: "tablet", sequence: 1), answer: answer)
                try await target.restore([CatalogArchive(catalog: CrossInstanceObservationTests.shelves.renamed("other"), journal: [])], retired: [:],
                                         clients: [ClientRecord(client: "tablet", lastSequence: 9, answers: [:])], replacing: false)
                let records = try await source.clientRecords()
                #expect(records.map(\.client) == ["phone", "tablet"] && records[0].answers.keys.sorted() == [1, 2, 3])
                try await target.restore([try await source.archive(of: "shelf")], retired: [:], clients: records, replacing: false)

                let revision = try await target.revision(of: "shelf")
                #expect(try await target.apply(move("a"), to: "shelf", as: ClientWrite(client: "phone", sequence: 2, requestStart: 1),
                                               answer: answer) == .answeredBefore(RecordedAnswer(status: 200, body: "revision 3")))
                #expect(try await target.revision(of: "shelf") == revision)
                guard case .applied = try await target.apply(move("b"), to: "shelf", as: ClientWrite(client: "phone", sequence: 4),
                                                             answer: answer) else { Issue.record("not applied"); return }
                // The target's own newer number for the tablet stays.
                #expect(try await target.clientRecords().first { $0.client == "tablet" }?.lastSequence == 9)
                try await target.checkIntegrity()
            }
        }
    }

    @Test(arguments: Backend.available)
    func aBrokenArchiveWritesNothing(backend: Backend) async throws {
        try await withDatabase(backend) { store in
            let catalog = CrossInstanceObservationTests.shelves.with(revision: 4)
            let gap = CatalogArchive(catalog: catalog, journal: [.init(revision: 2, patch: "{\"sections\":[]}")])
            await #expect(throws: StoreError.self) { try await store.restore([gap], retired: [:], replacing: false) }
            let garbled = CatalogArchive(catalog: catalog, journal: [.init(revision: 4, patch: "not json")])
            await #expect(throws: StoreError.self) { try await store.restore([garbled], retired: [:], replacing: false) }
            var full = catalog
            full.sections[0].items += CatalogDatabaseTests.books("x", 5)
            await #expect(throws: StoreError.self) {
                try await store.restore([CatalogArchive(catalog: full, journal: [])], retired: [:], replacing: false)
            }
            await #expect(throws: StoreError.self) {
                try await store.restore([], retired: [:], clients: [ClientRecord(client: "bad id!", lastSequence: 1, answers: [:])], replacing: false)
            }
            for bad in [ClientRecord(client: "phone", lastSequence: 0, answers: [:]),
                        ClientRecord(client: "phone", lastSequence: 2, answers: [3: RecordedAnswer(status: 200, body: "{}")])] {
                await #expect(throws: StoreError.self) {
                    try await store.restore([CatalogArchive(catalog: catalog, journal: [])], retired: [:], clients: [bad], replacing: false)
                }
            }
            #expect(try await store.clientRecords().isEmpty)
            let summaries = try await store.summaries()
            #expect(summaries.isEmpty)
        }
    }
}
