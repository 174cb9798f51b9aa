import Testing
@testable import CatalogModel

/// The field table: every kind's fields read, written and rebuilt through it give the item back.
@Suite("Item fields")
struct ItemFieldTests {
    /// Items of every kind with every optional field both set and empty.
    static let items: [ItemContent] = [
        .video(Video(title: "Clip", cover: "c.jpg", playCount: 12, likeCount: 3, status: .reviewing, statusText: "queued")),
        .video(Video(title: "", cover: "", playCount: 0, likeCount: 0, status: .published, statusText: nil)),
        .book(Book(title: "Dune", cover: "dune.png", author: "Herbert")),
        .book(Book(title: "Anonymous", cover: "a.png", author: nil)),
        .icon(Icon(name: "Mail", icon: "envelope")),
    ]

    @Test("the ordinal of a field is its place in allCases")
    func ordinals() {
        #expect(ItemField.allCases.map(\.ordinal) == Array(ItemField.allCases.indices))
    }

    @Test("every kind's content fields are content, and only the id and the size's lengths are not")
    func contentFields() {
        for kind in ItemKind.allCases {
            #expect(ItemField.content(of: kind).allSatisfy { $0.contentType != nil })
        }
        let content = Set(ItemKind.allCases.flatMap(ItemField.content(of:)))
        #expect(Set(ItemField.allCases).subtracting(content) == Set(ItemField.common))
    }

    @Test("content rebuilt from its fields, and each field set to its own value, is the same content")
    func roundTrip() throws {
        let generated = SectionKind.allCases.flatMap { kind in
            Catalog.generated(items: 100, sections: 4, kind: kind, seed: 5).sections.flatMap(\.items).map(\.content)
        }
        for content in Self.items + generated {
            #expect(try ItemContent(kind: content.kind) { content[$0] } == content)
            var copy = content
            for field in ItemField.content(of: content.kind) { try copy.set(field, to: content[field]) }
            #expect(copy == content)
            #expect(content.fieldErrors.isEmpty)
            // Fields of other kinds read as nothing.
            for field in ItemField.allCases where !ItemField.content(of: content.kind).contains(field) {
                #expect(content[field] == nil)
            }
        }
    }

    @Test("a field of another kind, a wrong type, a negative count, an unknown status or a missing value is refused and changes nothing")
    func refusals() {
        let video = Self.items[0]
        func refusal(_ field: ItemField, _ value: ItemFieldValue?, in content: ItemContent = video) -> ItemFieldError? {
            var copy = content
            do {
                try copy.set(field, to: value)
                return nil
            } catch {
                #expect(copy == content, "nothing changed")
                return error
            }
        }
        #expect(refusal(.author, .text("x"))?.reason == .notOfKind(.video))
        #expect(refusal(.id, .text("x"))?.reason == .notOfKind(.video))
        #expect(refusal(.playCount, .count(-1))?.detail == "expected an integer ≥ 0, found -1")
        #expect(refusal(.playCount, .text("7"))?.detail == "expected an integer ≥ 0, found \"7\"")
        #expect(refusal(.title, .count(7))?.detail == "expected a string, found 7")
        #expect(refusal(.title, nil)?.detail == "expected a string, found nothing")
        #expect(refusal(.status, .text("gone"))?.field == .status)
        #expect(refusal(.statusText, .count(1)) != nil)
        #expect(refusal(.statusText, nil) == nil, "an optional field is cleared")
        #expect(refusal(.icon, .text("x"), in: Self.items[2])?.detail == "a book has no such field")

        #expect(throws: ItemFieldError.self) { try ItemContent(kind: .book) { $0 == .title ? .text("t") : nil } }
        let negative = ItemContent.video(Video(title: "t", cover: "c", playCount: -5))
        #expect(negative.fieldErrors.map(\.field) == [.playCount])
    }
}
