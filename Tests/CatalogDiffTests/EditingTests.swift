import CatalogDiff
import CatalogModel
import Testing

/// The rules of batch updates (docs/Batches-and-moves.md) and moves (docs/Batches-and-moves.md) on catalogues in memory.
@Suite struct EditingTests {
    /// Three shelves of capacity 4: a full, b with two books, c full.
    static let shelves = Catalog(name: "shelf", revision: 5, sections: [
        Section(id: "a", kind: .bookshelf, title: "A", capacity: 4, items: books("a", 4)),
        Section(id: "b", kind: .bookshelf, title: "B", capacity: 4, items: books("b", 2)),
        Section(id: "c", kind: .bookshelf, title: "C", capacity: 4, items: books("c", 4)),
    ])

    static func books(_ prefix: String, _ count: Int) -> [Item] {
        (0..<count).map { Item(id: "\(prefix)\($0)", content: .book(Book(title: "\(prefix) \($0)", cover: "\(prefix)\($0)"))) }
    }

    static func ids(_ catalog: Catalog) -> [[String]] { catalog.sections.map { $0.items.map(\.id) } }

    static func apply(_ operations: [BatchOperation], to catalog: Catalog = shelves, base: Int? = nil) throws -> (Catalog, Changeset) {
        var editor = CatalogEditor(source: InMemoryCatalogSource(catalog))
        try editor.apply(Batch(baseRevision: base, operations: operations))
        let result = editor.result(from: catalog)
        let changeset = try editor.changeset(catalog: catalog.name)
        #expect(changeset.violations(from: catalog, to: result) == [], "\(operations)")
        #expect(try catalog.applying(Batch(baseRevision: base, operations: operations)) == result)
        return (result, changeset)
    }

    static func failure(_ operations: [BatchOperation], base: Int? = nil) -> BatchError? {
        do {
            _ = try shelves.applying(Batch(baseRevision: base, operations: operations))
            return nil
        } catch {
            return error
        }
    }

    @Test func movesWithinAShelfNeedNoRoom() throws {
        let (result, changeset) = try Self.apply([.moveItem(id: "a0", toSection: "a", index: 4)])
        #expect(Self.ids(result)[0] == ["a1", "a2", "a3", "a0"])
        #expect(result.revision == 6)
        #expect(changeset.stages.flatMap(\.items.moved).count == 1)
    }

    @Test func movesToAShelfWithRoom() throws {
        let (result, changeset) = try Self.apply([.moveItem(id: "a1", toSection: "b", index: 1)])
        #expect(Self.ids(result) == [["a0", "a2", "a3"], ["b0", "a1", "b1"], ["c0", "c1", "c2", "c3"]])
        #expect(changeset.stages.flatMap(\.items.moved) == [Move(from: ItemPath(section: 0, item: 1), to: ItemPath(section: 1, item: 1))])
    }

    @Test func withoutAnIndexAMoveGoesToTheEndAsTheShelfIsThen() throws {
        let (result, _) = try Self.apply([
            .insertItem(section: "b", index: 2, item: Self.books("x", 1)[0]),
            .moveItem(id: "a0", toSection: "b", index: nil),
            .moveItem(id: "b0", toSection: "b", index: nil),
        ])
        #expect(Self.ids(result)[1] == ["b1", "x0", "a0", "b0"])
    }

    @Test func aFullShelfRejectsByDefault() {
        let error = Self.failure([.moveItem(id: "b0", toSection: "c", index: 0)])
        #expect(error?.reason == .sectionFull(section: "c", capacity: 4))
        #expect(error?.description == #"operation 0 (moveItem): shelf "c" is full: it holds at most 4 books"#)
    }

    @Test func insertingIntoAFullShelfIsRefusedAndFillingOneIsNot() throws {
        let book = Self.books("x", 2)
        for index in [0, 2, 4] {
            let error = Self.failure([.insertItem(section: "a", index: index, item: book[0])])
            #expect(error?.reason == .sectionFull(section: "a", capacity: 4), "at \(index)")
            #expect(error?.operation == 0)
        }
        // b has two places: the first two inserts fill it, the third is refused at operation 2.
        let third = Self.failure([.insertItem(section: "b", index: 0, item: book[0]), .insertItem(section: "b", index: 3, item: book[1]),
                                  .insertItem(section: "b", index: 1, item: Self.books("y", 1)[0])])
        #expect(third?.reason == .sectionFull(section: "b", capacity: 4))
        #expect(third?.operation == 2)
        let (result, _) = try Self.apply([.insertItem(section: "b", index: 0, item: book[0]), .insertItem(section: "b", index: 3, item: book[1])])
        #expect(Self.ids(result)[1] == ["x0", "b0", "b1", "x1"])
    }

    @Test func displaceCascadesAndFailsOffTheLastShelf() throws {
        // Into full a at 0: a's last book overflows to the start of b (which has room).
        let (result, changeset) = try Self.apply([.moveItem(id: "c0", toSection: "a", index: 0, policy: .displace)])
        #expect(Self.ids(result) == [["c0", "a0", "a1", "a2"], ["a3", "b0", "b1"], ["c1", "c2", "c3"]])
        #expect(changeset.stages.flatMap(\.items.moved).count == 2)
        // Fill b, then displace into a: the cascade runs a → b → c, and c is full with no next shelf.
        let error = Self.failure([
            .insertItem(section: "b", index: 2, item: Self.books("x", 1)[0]),
            .insertItem(section: "b", index: 3, item: Self.books("y", 1)[0]),
            .moveItem(id: "y0", toSection: "a", index: 1, policy: .displace),
        ])
        #expect(error == nil)  // y0 leaves b, so b has room for a's overflow
        let full = Self.failure([
            .insertItem(section: "b", index: 2, item: Self.books("x", 1)[0]),
            .insertItem(section: "b", index: 3, item: Self.books("y", 1)[0]),
            .moveItem(id: "a0", toSection: "c", index: 0, policy: .displace),
        ])
        #expect(full?.reason == .noRoomToDisplace(section: "c"))
        #expect(full?.operation == 2)
    }

    @Test func swapTradesPlaces() throws {
        let (result, _) = try Self.apply([.moveItem(id: "b1", toSection: "c", index: 2, policy: .swap)])
        #expect(Self.ids(result) == [["a0", "a1", "a2", "a3"], ["b0", "c2"], ["c0", "c1", "b1", "c3"]])
        #expect(Self.failure([.moveItem(id: "b1", toSection: "c", index: 4, policy: .swap)])?.reason
                == .nothingToSwap(section: "c", index: 4))
    }

    @Test func everyOperationKind() throws {
        let (result, changeset) = try Self.apply([
            .insertItem(section: "b", index: 0, item: Self.books("n", 1)[0]),
            .deleteItem(id: "a2"),
            .updateItem(id: "c1", fields: ItemFields(title: "New title", author: .some("Someone"))),
            .moveItem(id: "c3", toSection: "a", index: 3),
            .insertSection(index: 1, section: Section(id: "s9", kind: .bookshelf, capacity: 4)),
            .deleteSection(id: "b"),
            .moveSection(id: "c", index: 0),
            .updateSection(id: "a", fields: SectionFields(title: .some("Favourites"))),
        ])
        #expect(result.sections.map(\.id) == ["c", "a", "s9"])
        #expect(Self.ids(result) == [["c0", "c1", "c2"], ["a0", "a1", "a3", "c3"], []])
        #expect(result.sections[1].title == "Favourites")
        guard case .book(let book) = result.sections[0].items[1].content else { Issue.record("not a book"); return }
        #expect(book.title == "New title" && book.author == "Someone")
        #expect(!changeset.isEmpty)
    }

    @Test func badOperationsAreTypedErrorsNamingTheOperation() {
        let cases: [([BatchOperation], Int?, BatchError.Reason, Int?)] = [
            ([.deleteItem(id: "nope")], nil, .unknownItem("nope"), 0),
            ([.moveItem(id: "a0", toSection: "zz", index: 0)], nil, .unknownSection("zz"), 0),
            ([.moveItem(id: "a0", toSection: "b", index: 3)], nil, .indexOutOfRange(index: 3, count: 2, what: "section \"b\""), 0),
            ([.insertItem(section: "b", index: 0, item: Self.books("a", 1)[0])], nil, .duplicateItemID("a0"), 0),
            ([.insertItem(section: "b", index: 0, item: Item(id: "i", content: .icon(Icon(name: "i", icon: "i"))))], nil,
             .kindMismatch(item: "i", kind: .icon, section: "b", sectionKind: .bookshelf), 0),
            ([.deleteItem(id: "a0"), .deleteItem(id: "a0")], nil, .unknownItem("a0"), 1),
            ([.updateItem(id: "a0", fields: ItemFields(playCount: 3))], nil, .invalidField("playCount", detail: "a book has no such field"), 0),
            ([.updateSection(id: "a", fields: SectionFields(capacity: .some(2)))], nil, .capacityBelowCount(section: "a", capacity: 2, count: 4), 0),
            ([.insertSection(index: 9, section: Section(id: "z", kind: .icons))], nil, .indexOutOfRange(index: 9, count: 3, what: "the sections"), 0),
            ([.insertSection(index: 0, section: Section(id: "a", kind: .icons))], nil, .duplicateSectionID("a"), 0),
            ([.moveSection(id: "a", index: 3)], nil, .indexOutOfRange(index: 3, count: 3, what: "the sections"), 0),
            ([.deleteSection(id: "q")], nil, .unknownSection("q"), 0),
            ([], 4, .staleRevision(base: 4, current: 5), nil),
        ]
        for (operations, base, reason, index) in cases {
            let error = Self.failure(operations, base: base)
            #expect(error?.reason == reason, "\(operations)")
            #expect(error?.operation == index)
        }
    }

    @Test func itemsOfDeletedSectionsAreGoneAndIdsCanBeReused() throws {
        let (result, _) = try Self.apply([.deleteSection(id: "a"), .insertItem(section: "b", index: 0, item: Self.books("a", 1)[0])])
        #expect(Self.ids(result) == [["a0", "b0", "b1"], ["c0", "c1", "c2", "c3"]])
        #expect(Self.failure([.deleteSection(id: "a"), .moveItem(id: "a1", toSection: "b", index: 0)])?.reason == .unknownItem("a1"))
    }
}
