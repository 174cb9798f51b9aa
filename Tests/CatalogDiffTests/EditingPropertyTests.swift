import CatalogDiff
import CatalogModel
import CatalogTestSupport
import Testing

/// 10,000 random operation sequences (valid and invalid mixed) on catalogues in memory: after
/// every operation the catalogue is valid (no shelf over capacity, unique ids), moves keep the
/// multiset of books, a success raises the revision by one, and the edit's changeset — computed
/// from the sections it read — replays to the new catalogue under the simulator.
@Suite struct EditingPropertyTests {
    @Test(arguments: 0..<10)
    func randomSequences(batch: Int) throws {
        var random = RandomEdits(seed: UInt64(500 + batch))
        var accepted = 0, refused = 0
        for _ in 0..<1_000 {
            var catalog = random.catalog()
            for _ in 0..<random.int(1...6) {
                // Sometimes several operations as one batch, which lands whole or not at all.
                let operations = (0..<(random.chance(25) ? random.int(2...4) : 1)).map { _ in random.operation(on: catalog) }
                var editor = CatalogEditor(source: InMemoryCatalogSource(catalog))
                do {
                    try editor.apply(Batch(baseRevision: random.chance(90) ? catalog.revision : catalog.revision - 1,
                                           operations: operations))
                } catch is BatchError {
                    refused += 1
                    continue
                }
                let next = editor.result(from: catalog)
                #expect(next.violations() == [], "\(operations)")
                #expect(next.revision == catalog.revision + 1)
                if operations.allSatisfy({ if case .moveItem = $0 { true } else { false } }) {
                    #expect(Self.books(next) == Self.books(catalog), "moves keep every book: \(operations)")
                }
                let changeset = try editor.changeset(catalog: catalog.name)
                let violations = changeset.violations(from: catalog, to: next)
                #expect(violations == [], "\(operations): \(violations)")
                if !violations.isEmpty { return }
                accepted += 1
                catalog = next
            }
        }
        #expect(accepted > 1_000 && refused > 300, "accepted \(accepted), refused \(refused)")
    }

    static func books(_ catalog: Catalog) -> [String] {
        catalog.sections.flatMap { $0.items.map(\.id) }.sorted()
    }
}
