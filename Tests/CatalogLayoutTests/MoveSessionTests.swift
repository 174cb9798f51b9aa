import CatalogDiff
import CatalogLayout
import CatalogModel
import Testing

/// Interactive moves on a bookshelf like the sample's: seven shelves of capacity 4 holding 4, 3,
/// 4, 2, 4, 1 and 0 books, laid out as shelves on a phone screen.
@Suite struct MoveSessionTests {
    static let counts = [4, 3, 4, 2, 4, 1, 0]
    static let shelves = Catalog(name: "bookshelf", sections: counts.enumerated().map { s, count in
        Section(id: "shelf\(s)", kind: .bookshelf, title: "Shelf \(s)", capacity: 4,
                items: (0..<count).map { Item(id: "b\(s)-\($0)", content: .book(Book(title: "Book \($0)", cover: "\($0)"))) })
    })
    static let config = LayoutConfiguration(style: .shelf, itemSize: Size(width: 80, height: 120),
                                            sectionInset: Insets(top: 12, left: 12, bottom: 12, right: 12), headerHeight: 32)

    static func layout() throws -> Layout {
        try Layout(LayoutInput(shelves), configuration: config, viewportSize: Size(width: 390, height: 844))
    }

    static func centre(_ layout: Layout, _ section: Int, _ item: Int) -> Point {
        layout.attributes(forItemAt: ItemPath(section: section, item: item))!.center
    }

    /// A point on a shelf's board to the right of its books.
    static func emptySpace(_ layout: Layout, _ section: Int) -> Point {
        // An empty shelf has no board: just below its header, in its inset.
        guard let board = layout.attributes(forSupplementary: .decoration, inSection: section)?.frame else {
            return Point(x: 385, y: layout.attributes(forSupplementary: .header, inSection: section)!.frame.maxY + 6)
        }
        return Point(x: 385, y: board.midY)
    }

    @Test func aScriptedDragAcrossTheShelves() throws {
        let layout = try Self.layout()
        var session = try #require(MoveSession(catalog: Self.shelves, layout: layout, beginAt: Self.centre(layout, 0, 0)))
        #expect(session.item == "b0-0" && session.source == ItemPath(section: 0, item: 0))
        let script: [(Point, ItemPath, String)] = [
            (Self.centre(layout, 1, 1), ItemPath(section: 1, item: 1), "over a book of a shelf with room"),
            (Self.centre(layout, 2, 2), ItemPath(section: 1, item: 1), "over a full shelf: the proposal stays"),
            (Self.emptySpace(layout, 3), ItemPath(section: 3, item: 2), "past the books of a shelf: its end"),
            (Self.centre(layout, 0, 3), ItemPath(section: 0, item: 3), "back on its own full shelf: allowed"),
            (Self.emptySpace(layout, 4), ItemPath(section: 0, item: 3), "a full shelf's empty space: stays"),
            (Point(x: -40, y: 10), ItemPath(section: 0, item: 3), "outside the layout: stays"),
            (Self.emptySpace(layout, 6), ItemPath(section: 6, item: 0), "an empty shelf"),
            (Self.centre(layout, 5, 0), ItemPath(section: 5, item: 0), "over the only book of a shelf"),
        ]
        for (point, expected, why) in script {
            #expect(session.update(to: point, in: layout) == expected, "\(why)")
        }
        let operation = try #require(session.end())
        #expect(operation == .moveItem(id: "b0-0", toSection: "shelf5", index: 0))
        let moved = try Self.shelves.applying(Batch(operations: [operation]))
        #expect(moved.sections[5].items.map(\.id) == ["b0-0", "b5-0"])
        #expect(moved.sections[0].items.count == 3)
    }

    @Test func droppingWhereItStartedOrOnNothingMovesNothing() throws {
        let layout = try Self.layout()
        #expect(MoveSession(catalog: Self.shelves, layout: layout, beginAt: Self.emptySpace(layout, 6)) == nil)
        var session = try #require(MoveSession(catalog: Self.shelves, layout: layout, beginAt: Self.centre(layout, 3, 1)))
        session.update(to: Self.centre(layout, 2, 0), in: layout)   // full: stays at the source
        #expect(session.end() == nil)
        // Within its own shelf, past the last book: the end of the shelf once it has left its place.
        session.update(to: Self.emptySpace(layout, 3), in: layout)
        #expect(session.proposal == ItemPath(section: 3, item: 1))
        #expect(session.end() == nil, "the last book of its shelf, dropped at the end of that shelf, stays")
    }
}
