import CatalogDiff
import CatalogModel
import CatalogStore
import CatalogTestSupport
import CatalogViews
import Testing

/// Live views on both backends: writes through one handle reach the view's observers on the
/// other, each as the view's changeset from the view before; observers of one view share it.
@Suite struct ViewObservationTests {
    static func video(_ id: String, plays: Int, _ status: VideoStatus) -> Item {
        Item(id: id, content: .video(Video(title: "Video \(id)", cover: id, playCount: plays, status: status)))
    }

    static let feed = Catalog(name: "feed", sections: (0..<3).map { s in
        Section(id: "s\(s)", kind: .videos, items: (0..<8).map { i in
            video("v\(s)-\(i)", plays: (s * 8 + i) * 10, [.published, .recommended, .draft][(s + i) % 3])
        })
    })

    static let definition = try! ViewDefinition(where: #"status in ["published", "recommended"]"#,
                                                sort: "-playCount,title", group: "status", limit: 6)

    /// Follows `observer` until the view stands at `revision`: each answer starts where the last
    /// ended and its changeset, checked by the simulator, takes the view to the answer's.
    static func follow(_ observer: CatalogViewObserver, from view: Catalog, to revision: Int) async throws -> Catalog {
        var view = view
        while view.revision < revision {
            let answer = try #require(try await observer.next(waitingAtMost: .seconds(60)), "no answer past revision \(view.revision)")
            let changeset = try #require(answer.update.changeset, "a reset at revision \(answer.update.revision)")
            #expect(changeset.fromRevision == view.revision)
            #expect(changeset.violations(from: view, to: answer.update.catalog) == [])
            #expect(answer.update.stages == changeset.stagedCatalogs(from: view, to: answer.update.catalog))
            view = answer.update.catalog
        }
        return view
    }

    @Test(arguments: Backend.available)
    func writesOnOneHandleReachTheViewOnTheOther(backend: Backend) async throws {
        try await withTwoHandles(backend) { writer, reader in
            try await writer.replace([(Self.feed, nil)], progress: nil)
            let first = reader.viewObserver(of: "feed", view: Self.definition)
            let second = reader.viewObserver(of: "feed", view: Self.definition)
            let start = try #require(try await first.next(waitingAtMost: .seconds(60)))
            #expect(start.update.isReset)
            #expect(start.total == 16)
            #expect(start.update.catalog == (try Self.definition.evaluate(on: try await reader.catalog(named: "feed"))).catalog)
            _ = try #require(try await second.next(waitingAtMost: .seconds(60)))
            #expect((reader as! any ObservedDatabase).views.count == 1, "two observers of one view share it")

            // A play count that moves an item to the top, a move between stored sections, a
            // status change that takes an item out, an insert and a delete.
            var revision = try await writer.apply(Batch(operations: [.updateItem(id: "v0-0", fields: ItemFields(playCount: 1_000))]), to: "feed").revision
            revision = try await writer.move(item: "v2-7", toSection: "s0", index: 0, in: "feed").revision
            revision = try await writer.apply(Batch(operations: [.updateItem(id: "v2-6", fields: ItemFields(status: .draft))]), to: "feed").revision
            revision = try await writer.apply(Batch(operations: [
                .insertItem(section: "s1", index: 2, item: Self.video("new", plays: 500, .recommended)),
                .deleteItem(id: "v2-4"),
            ]), to: "feed").revision

            let seen = try await Self.follow(first, from: start.update.catalog, to: revision)
            let stored = try await reader.catalog(named: "feed")
            #expect(seen == (try Self.definition.evaluate(on: stored)).catalog)
            #expect(seen.sections.flatMap(\.items).first?.id == "v0-0")
            #expect(try await Self.follow(second, from: start.update.catalog, to: revision) == seen)
        }
    }

    @Test(arguments: Backend.available)
    func aWriteTheViewDoesNotShowSendsNothing(backend: Backend) async throws {
        try await withDatabase(backend) { store in
            try await store.replace([(Self.feed, nil)], progress: nil)
            let observer = store.viewObserver(of: "feed", view: Self.definition)
            let start = try #require(try await observer.next(waitingAtMost: .seconds(60)))
            // A draft's play count: outside the filter. Then a change the view shows.
            _ = try await store.apply(Batch(operations: [.updateItem(id: "v0-2", fields: ItemFields(playCount: 7))]), to: "feed")
            let shown = try await store.apply(Batch(operations: [.updateItem(id: "v0-0", fields: ItemFields(playCount: 5_000))]), to: "feed")
            let answer = try #require(try await observer.next(waitingAtMost: .seconds(60)))
            #expect(answer.update.changeset?.fromRevision == start.update.revision)
            #expect(answer.update.revision == shown.revision)
        }
    }

    @Test(arguments: Backend.available)
    func resumesFromARevisionWithTheViewsChangeset(backend: Backend) async throws {
        try await withDatabase(backend) { store in
            try await store.replace([(Self.feed, nil)], progress: nil)
            let at = try await store.revision(of: "feed")
            let before = try Self.definition.evaluate(on: try await store.catalog(named: "feed")).catalog
            let write = try await store.apply(Batch(operations: [.updateItem(id: "v2-1", fields: ItemFields(playCount: 9_999))]), to: "feed")
            let observer = store.viewObserver(of: "feed", view: Self.definition, from: at)
            let answer = try #require(try await observer.next(waitingAtMost: .seconds(60)))
            let changeset = try #require(answer.update.changeset)
            #expect(changeset.violations(from: before, to: answer.update.catalog) == [])
            #expect(answer.update.revision == write.revision)
            #expect(answer.update.catalog.sections.flatMap(\.items).first?.id == "v2-1")
        }
    }

    /// An observer behind by several moves this process made (the writes whose updates the
    /// store keeps) takes them one at a time, each the items its write named, not one diff of
    /// the whole catalogue.
    @Test(arguments: Backend.available)
    func anObserverBehindTakesTheWritesOneAtATime(backend: Backend) async throws {
        try await withDatabase(backend) { store in
            try await store.replace([(Self.feed, nil)], progress: nil)
            let byPlays = try ViewDefinition(sort: "-playCount")
            let observer = store.viewObserver(of: "feed", view: byPlays)
            let start = try #require(try await observer.next(waitingAtMost: .seconds(60)))
            var revisions: [Int] = []
            // Videos into other stored sections, which the view shows (group=section).
            for (id, section) in [("v0-0", "s2"), ("v1-2", "s0"), ("v2-1", "s1")] {
                revisions.append(try await store.move(item: id, toSection: section, index: 0, in: "feed").revision)
            }
            var view = start.update.catalog
            for revision in revisions {
                let answer = try #require(try await observer.next(waitingAtMost: .seconds(60)))
                #expect(answer.update.changeset?.fromRevision == view.revision)
                #expect(answer.update.revision == revision, "one write at a time")
                #expect(answer.update.changeset?.violations(from: view, to: answer.update.catalog) == [])
                view = answer.update.catalog
            }
            #expect(view == (try byPlays.evaluate(on: try await store.catalog(named: "feed"))).catalog)
        }
    }

    @Test func aViewNobodyObservesIsDropped() async throws {
        try await withDatabase(.sqlite) { store in
            try await store.replace([(Self.feed, nil)], progress: nil)
            do {
                let observer = store.viewObserver(of: "feed", view: Self.definition)
                _ = try await observer.next(waitingAtMost: .seconds(60))
                #expect((store as! any ObservedDatabase).views.count == 1)
            }
            #expect((store as! any ObservedDatabase).views.count == 0)
        }
    }

    @Test func anUnknownFieldEndsTheViewWithItsName() async throws {
        try await withDatabase(.sqlite) { store in
            try await store.replace([(Self.feed, nil)], progress: nil)
            let observer = store.viewObserver(of: "feed", view: try ViewDefinition(sort: "author"))
            await #expect(throws: ViewError(.sort, at: nil, .unknownField("author", fields: ViewField.fields(of: [.video]).map(\.name)))) {
                try await observer.next(waitingAtMost: .seconds(60))
            }
        }
    }
}
