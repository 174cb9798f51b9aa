import CatalogModel
import Testing

@Suite("Generated catalogues")
struct GeneratedCatalogTests {
    @Test("the same arguments give the same catalogue, and it is valid", arguments: SectionKind.allCases)
    func deterministic(kind: SectionKind) throws {
        let a = Catalog.generated(items: 1_003, sections: 10, kind: kind, seed: 7)
        let b = Catalog.generated(items: 1_003, sections: 10, kind: kind, seed: 7)
        #expect(a == b)
        #expect(a.itemCount == 1_003)
        #expect(a.sections.count == 10)
        #expect(a.sections.map(\.items.count).max()! - a.sections.map(\.items.count).min()! <= 1)
        try a.validate()
        #expect(a != Catalog.generated(items: 1_003, sections: 10, kind: kind, seed: 8))
    }

    @Test("generated shelves reuse some covers, as real shelves do")
    func sharedCovers() {
        let shelf = Catalog.generated(items: 2_000, sections: 500, kind: .bookshelf)
        let covers = shelf.sections.flatMap(\.items).map(\.content.naturalKey)
        #expect(Set(covers).count < covers.count)
        #expect(shelf.sections.allSatisfy { $0.capacity == 4 })
    }
}
