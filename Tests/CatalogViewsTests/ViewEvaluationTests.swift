import CatalogModel
import CatalogViews
import Testing

@Suite struct ViewEvaluationTests {
    static func video(_ id: String, _ title: String, plays: Int, _ status: VideoStatus = .published, text: String? = nil) -> Item {
        Item(id: id, content: .video(Video(title: title, cover: id + ".jpg", playCount: plays, status: status, statusText: text)))
    }

    static let feed = Catalog(name: "feed", revision: 3, sections: [
        Section(id: "new", kind: .videos, title: "New", items: [
            video("a", "Cats", plays: 10), video("b", "Dogs", plays: 30, .recommended), video("c", "Café", plays: 10, .draft),
        ]),
        Section(id: "old", kind: .videos, title: "Old", items: [
            video("d", "cats again", plays: 30, text: "ok"), video("e", "Birds", plays: 5, .recommended),
        ]),
    ])

    func ids(_ result: ViewResult) -> [[String]] { result.catalog.sections.map { $0.items.map(\.id) } }

    @Test func filtersSortsAndKeepsStoredSections() throws {
        let view = try ViewDefinition(where: #"status != "draft""#, sort: "-playCount,title")
        let result = try view.evaluate(on: Self.feed)
        #expect(ids(result) == [["b", "a"], ["d", "e"]])
        #expect(result.total == 4)
        #expect(result.catalog.sections.map(\.title) == ["New", "Old"])
        // Folded contains: "Café" and "cats" by "CA".
        #expect(ids(try ViewDefinition(where: #"title contains "CA""#).evaluate(on: Self.feed)) == [["a", "c"], ["d"]])
        #expect(ids(try ViewDefinition(where: #"title contains "cafe""#).evaluate(on: Self.feed)) == [["c"], []])
        // Absent values: comparisons false, not of them true, null tests presence.
        #expect(ids(try ViewDefinition(where: #"statusText != "x""#).evaluate(on: Self.feed)) == [[], ["d"]])
        #expect(ids(try ViewDefinition(where: #"not (statusText = "ok")"#).evaluate(on: Self.feed)) == [["a", "b", "c"], ["e"]])
        #expect(ids(try ViewDefinition(where: "statusText = null").evaluate(on: Self.feed)) == [["a", "b", "c"], ["e"]])
        #expect(ids(try ViewDefinition(where: #"section = "old""#).evaluate(on: Self.feed)) == [[], ["d", "e"]])
    }

    @Test func tiesKeepTheStoredOrderAndAbsentValuesComeLast() throws {
        let result = try ViewDefinition(sort: "playCount", group: "none").evaluate(on: Self.feed)
        #expect(ids(result) == [["e", "a", "c", "b", "d"]])
        let bySection = try ViewDefinition(sort: "-statusText", group: "none").evaluate(on: Self.feed)
        #expect(ids(bySection) == [["d", "a", "b", "c", "e"]])
    }

    @Test func groupsByFieldAndWindows() throws {
        let result = try ViewDefinition(sort: "title", group: "-status").evaluate(on: Self.feed)
        #expect(result.catalog.sections.map(\.id) == ["recommended", "published", "draft"])
        #expect(ids(result) == [["e", "b"], ["a", "d"], ["c"]])
        let window = try ViewDefinition(sort: "title", group: "-status", limit: 2, offset: 1).evaluate(on: Self.feed)
        #expect(window.catalog.sections.map(\.id) == ["recommended", "published"])
        #expect(ids(window) == [["b"], ["a"]])
        #expect(window.total == 5)
        let stored = try ViewDefinition(limit: 1, offset: 3).evaluate(on: Self.feed)
        #expect(ids(stored) == [[], ["d"]])
        #expect(ViewGroups.sectionID(for: nil) == "null")
        #expect(ViewGroups.sectionID(for: .text("null")) == "\\null")
        #expect(ViewGroups.sectionID(for: .text("\\x")) == "\\\\x")
        let byText = try ViewDefinition(group: "statusText").evaluate(on: Self.feed)
        #expect(byText.catalog.sections.map(\.id) == ["ok", "null"])
        #expect(byText.catalog.sections.map(\.title) == ["ok", "(none)"])
    }

    @Test func refusesFieldsTheCatalogueLacksAndMixedKinds() throws {
        var mixed = Self.feed
        mixed.sections.append(Section(id: "books", kind: .bookshelf, items: [Item(id: "x", content: .book(Book(title: "W", cover: "w")))]))
        #expect(throws: ViewError(.group, at: nil, .mixedKinds(section: "items", kinds: [.video, .book]))) {
            try ViewDefinition(group: "none").evaluate(on: mixed)
        }
        #expect(try ViewDefinition(where: #"kind = "video""#, group: "none").evaluate(on: mixed).total == 5)
        #expect(throws: ViewError(.where, at: nil, .unknownField("author", fields: ["id", "title", "cover", "playCount", "likeCount", "status", "statusText", "width", "height", "kind", "section"]))) {
            try ViewDefinition(where: "author = null").check(against: Self.feed)
        }
        #expect(throws: ViewError.self) { try LiveView(ViewDefinition(sort: "-author"), of: Self.feed) }
        #expect(try ViewDefinition(where: "author = null").evaluate(on: Self.feed).total == 5)
    }
}
