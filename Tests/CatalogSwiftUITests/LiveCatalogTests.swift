import CatalogDiff
import CatalogModel
import CatalogSwiftUI
import Observation
import Testing

/// The SwiftUI model as SwiftUI reads it: through Observation's tracking, which ships with the
/// toolchain on every platform.
@MainActor @Suite struct LiveCatalogTests {
    static func shelf(_ revision: Int, _ ids: [String]) -> Catalog {
        Catalog(name: "shelf", revision: revision, sections: [Section(id: "s", kind: .bookshelf, items: ids.map {
            Item(id: $0, content: .book(Book(title: $0, cover: $0)))
        })])
    }

    /// Tracks what `read` reads, as SwiftUI tracks a view's body: the stream gets one element
    /// when any of it changes (tracking is installed before this returns).
    static func tracking(_ read: () -> Void) -> AsyncStream<Void> {
        let (changes, change) = AsyncStream<Void>.makeStream()
        withObservationTracking(read, onChange: { change.yield() })
        return changes
    }

    @Test func eachUpdateChangesWhatAViewReadsOnce() async throws {
        let (updates, feed) = AsyncThrowingStream<CatalogUpdate, any Error>.makeStream()
        let live = LiveCatalog(updates)
        #expect(live.isLoading && live.catalog == nil && live.revision == nil)

        var changed = Self.tracking { _ = live.catalog }.makeAsyncIterator()
        feed.yield(.reset(Self.shelf(1, ["a", "b"])))
        #expect(await changed.next() != nil)
        // The tracking fires on willSet; the value is there once the task has run on.
        await Self.settle { live.revision == 1 }
        #expect(live.catalog == Self.shelf(1, ["a", "b"]) && !live.isLoading && live.lastUpdate?.isReset == true)

        var changeset = try Changeset(from: Self.shelf(1, ["a", "b"]), to: Self.shelf(2, ["b", "a"]))
        (changeset.fromRevision, changeset.toRevision) = (1, 2)
        changed = Self.tracking { _ = live.revision }.makeAsyncIterator()
        feed.yield(CatalogUpdate(revision: 2, catalog: Self.shelf(2, ["b", "a"]), changeset: changeset, stages: [Self.shelf(2, ["b", "a"])]))
        #expect(await changed.next() != nil)
        await Self.settle { live.revision == 2 }
        #expect(live.catalog?.sections[0].items.map(\.id) == ["b", "a"] && live.lastUpdate?.changeset == changeset)

        struct Broken: Error {}
        feed.finish(throwing: Broken())
        await Self.settle { live.hasEnded }
        #expect(live.error is Broken && live.catalog?.revision == 2 && !live.isLoading)
    }

    @Test func releasingTheModelEndsItsObservation() async throws {
        let (ended, endedFeed) = AsyncStream<Void>.makeStream()
        let (updates, feed) = AsyncStream<CatalogUpdate>.makeStream()
        feed.onTermination = { _ in endedFeed.yield() }
        var live: LiveCatalog? = LiveCatalog(updates)
        weak let held = live
        feed.yield(.reset(Self.shelf(1, ["a"])))
        await Self.settle { held?.revision == 1 }
        live = nil
        #expect(held == nil, "the model's task keeps it alive")
        // The consuming task was cancelled: the sequence is told it ends.
        var iterator = ended.makeAsyncIterator()
        #expect(await iterator.next() != nil)
        _ = live
    }

    /// Yields until `condition` holds: each yield lets the model's task run on (on the main actor,
    /// as this test), so the wait ends as soon as the update is taken in, with no clock.
    static func settle(_ condition: @MainActor () -> Bool) async {
        while !condition() { await Task.yield() }
    }
}
