import CatalogModel
import Testing

@Suite("Catalog invariants")
struct CatalogInvariantTests {
    private func book(_ id: String, cover: String = "c") -> Item {
        Item(id: id, content: .book(Book(title: "Title \(id)", cover: cover)))
    }

    @Test("a shelf without a capacity holds 4; other kinds are unbounded")
    func defaultCapacity() {
        #expect(Section(id: "s", kind: .bookshelf).capacity == 4)
        #expect(Section(id: "s", kind: .bookshelf, capacity: 10).capacity == 10)
        #expect(Section(id: "s", kind: .videos).capacity == nil)
        #expect(Section(id: "s", kind: .icons).capacity == nil)
    }

    @Test("a valid catalogue has no violations")
    func valid() throws {
        let catalog = Catalog(name: "shelf", sections: [
            Section(id: "a", kind: .bookshelf, items: [book("1"), book("2", cover: "c")]),
            Section(id: "b", kind: .icons, items: [Item(id: "i", content: .icon(Icon(name: "N", icon: "n")))]),
        ])
        #expect(catalog.violations().isEmpty)
        try catalog.validate()
        catalog.checkInvariants()
        #expect(catalog.itemCount == 3)
    }

    @Test("every broken rule is reported, in document order")
    func violations() {
        var crowded = Section(id: "a", kind: .bookshelf, capacity: 2)
        crowded.items = [book("1"), book("2"), book("1")]
        let catalog = Catalog(name: "", sections: [
            crowded,
            Section(id: "a", kind: .videos, items: [
                Item(id: "v", content: .video(Video(title: "t", cover: "c", playCount: -1, likeCount: -2))),
                book("x"),
            ]),
            Section(id: "", kind: .icons, capacity: 0),
        ])
        let found = catalog.violations()
        #expect(found.contains(.emptyCatalogName))
        #expect(found.contains(.overCapacity(section: 0, sectionID: "a", count: 3, capacity: 2)))
        #expect(found.contains(.duplicateSectionID("a", sections: [0, 1])))
        #expect(found.contains(.duplicateItemID("1", paths: [[0, 0], [0, 2]])))
        #expect(found.contains(.negativeCount(section: 1, item: 0, field: "playCount", value: -1)))
        #expect(found.contains(.negativeCount(section: 1, item: 0, field: "likeCount", value: -2)))
        #expect(found.contains(.itemKindMismatch(section: 1, item: 1, itemKind: .book, sectionKind: .videos)))
        #expect(found.contains(.emptySectionID(section: 2)))
        #expect(found.contains(.invalidCapacity(section: 2, capacity: 0)))
        #expect(found == catalog.violations(), "the order must not change between calls")
        #expect(throws: CatalogValidationError.self) { try catalog.validate() }
    }

    @Test("sizes must be finite and not negative")
    func sizes() {
        let catalog = Catalog(name: "c", sections: [
            Section(id: "s", kind: .icons, items: [
                Item(id: "a", content: .icon(Icon(name: "a", icon: "a")), size: Size(width: -1, height: 2)),
                Item(id: "b", content: .icon(Icon(name: "b", icon: "b")), size: Size(width: .infinity, height: 2)),
            ]),
        ])
        #expect(catalog.violations().count == 2)
    }

    @Test("content equality ignores the id")
    func sameContent() {
        let a = book("1", cover: "x")
        var b = book("2", cover: "x")
        b.content = a.content
        #expect(a.hasSameContent(as: b))
        b.size = Size(width: 1, height: 1)
        #expect(!a.hasSameContent(as: b))
    }

    @Test("copies of an item share its content until one sets its own; equal contents made apart are equal")
    func sharedContent() {
        let original = Item(id: "v", content: .video(Video(title: "A title long enough to be kept on the heap", cover: "c.png",
                                                           playCount: 3, statusText: "a status text kept on the heap too")))
        var copy = original
        guard case .video(var video) = copy.content else { Issue.record("not a video"); return }
        video.playCount = 4
        copy.content = .video(video)
        #expect(original.content == .video(Video(title: "A title long enough to be kept on the heap", cover: "c.png",
                                                 playCount: 3, statusText: "a status text kept on the heap too")))
        #expect(!copy.hasSameContent(as: original) && copy != original)
        video.playCount = 3
        copy.content = .video(video)
        // Made apart, the same content: equal, with equal hashes, as if it were shared.
        #expect(copy.hasSameContent(as: original) && copy == original && copy.hashValue == original.hashValue)
        var renamed = original
        renamed.id = "w"
        #expect(renamed.hasSameContent(as: original) && renamed != original)
        var resized = original
        resized.size = Size(width: 3, height: 4)
        #expect(original.size == nil && resized.content == original.content && !resized.hasSameContent(as: original))
    }
}
