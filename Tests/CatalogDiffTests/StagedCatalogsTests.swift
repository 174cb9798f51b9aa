import CatalogModel
import CatalogTestSupport
import Testing
@testable import CatalogDiff

/// The catalogue after each stage of a changeset (docs/Live-updates.md): on the diff's random pairs, every
/// stage leads from the data of the boundary before it to the data of the boundary after it, as
/// the simulator checks a changeset (same counts, same ids in every slot), and the last is B.
@Suite("Per-stage data")
struct StagedCatalogsTests {
    /// A diff property test pair as catalogues: ids as strings, content changed where the pair says.
    static func catalogs(_ pair: DiffPropertyTests.Pair) -> (Catalog, Catalog) {
        func catalog(_ shape: DiffPropertyTests.Shape, revision: Int, changed: Set<Int>, changedSections: Set<Int>) -> Catalog {
            Catalog(name: "c", revision: revision, sections: zip(shape.sections, shape.items).map { s, items in
                Section(id: "s\(s)", kind: .bookshelf, title: changedSections.contains(s) ? "new" : "old",
                        items: items.map { Item(id: "i\($0)", content: .book(Book(title: changed.contains($0) ? "new" : "old", cover: "c\($0)"))) })
            })
        }
        return (catalog(pair.a, revision: 1, changed: [], changedSections: []),
                catalog(pair.b, revision: 2, changed: pair.updatedItems, changedSections: pair.updatedSections))
    }

    /// The stage without its reloads, which change content, not ids or counts.
    static func shapeOnly(_ stage: Stage) -> Changeset {
        var stage = stage
        stage.items.reloaded = []
        stage.sections.reloaded = []
        return Changeset(stages: [stage])
    }

    @Test(arguments: 0..<4)
    func everyStageLeadsToTheNext(batch: Int) throws {
        var random = SplitMix64(seed: UInt64(7_100 + batch))
        var multiStage = 0
        for _ in 0..<500 {
            let (a, b) = Self.catalogs(DiffPropertyTests.randomPair(&random))
            let changeset = try Changeset(from: a, to: b)
            let staged = changeset.stagedCatalogs(from: a, to: b)
            try #require(staged.count == changeset.stages.count)
            guard let last = staged.last else { continue }
            #expect(last == b)
            if staged.count > 1 { multiStage += 1 }
            let itemsOfB = Dictionary(uniqueKeysWithValues: b.sections.flatMap(\.items).map { ($0.id, $0) })
            var before = a
            for (k, after) in staged.enumerated() {
                let violations = BatchUpdateSimulator.violations(of: Self.shapeOnly(changeset.stages[k]), from: before.shape, to: after.shape)
                #expect(violations == [], "stage \(k) of \(changeset.stages.count): \(violations)")
                // Items carry B's content wherever B has them.
                for section in after.sections {
                    for item in section.items {
                        if let inB = itemsOfB[item.id] { #expect(item == inB) }
                    }
                }
                before = after
            }
        }
        #expect(multiStage > 50, "only \(multiStage) changesets had several stages")
    }

    @Test func unchangedSectionsShareStorageWithB() throws {
        // A section inserted and filled from another (two stages); the third section is untouched.
        let books = (0..<3).map { Item(id: "b\($0)", content: .book(Book(title: "\($0)", cover: "\($0)"))) }
        let a = Catalog(name: "c", sections: [Section(id: "x", kind: .bookshelf, items: books),
                                              Section(id: "z", kind: .bookshelf, items: [])])
        let b = Catalog(name: "c", sections: [Section(id: "x", kind: .bookshelf, items: [books[0]]),
                                              Section(id: "y", kind: .bookshelf, items: [books[1], books[2]]),
                                              Section(id: "z", kind: .bookshelf, items: [])])
        let changeset = try Changeset(from: a, to: b)
        let staged = changeset.stagedCatalogs(from: a, to: b)
        #expect(staged.count == changeset.stages.count && staged.last == b)
        try #require(changeset.stages.count == 2)
        #expect(staged[0].sections.map(\.id) == ["x", "y", "z"])
        #expect(staged[0].sections[1].items.isEmpty && staged[0].sections[0].items.map(\.id) == ["b0", "b1", "b2"])
        #expect(Changeset(stages: [changeset.stages[0]]).isEmpty == false)
        #expect(try Changeset().stagedCatalogs(from: a, to: a) == [])
    }
}
