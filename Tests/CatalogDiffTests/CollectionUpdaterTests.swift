import CatalogModel
import CatalogTestSupport
import Testing
@testable import CatalogDiff

/// The collection-view updater against a fake view that checks every batch the way UIKit does:
/// the data source's counts after the batch must be the counts before it plus and minus the
/// batch's changes, the data must be set inside the batch, and batches never overlap.
@MainActor @Suite struct CollectionUpdaterTests {
    /// A collection view as UIKit's consistency check sees it, recording every call.
    final class FakeView: CatalogUpdateTarget {
        enum Call: Equatable {
            case batch(Stage)
            case reload
        }

        var isOnScreen = true
        /// Completions of batches still animating; the test ends them.
        var animating: [() -> Void] = []
        var calls: [Call] = []
        /// What the view shows: the ids it holds, per section.
        var shown: SnapshotShape<String, String>?
        var failures: [String] = []
        /// The items of each batch given a new cell rather than reconfigured.
        var reloadedItems: [[ItemPath]] = []
        weak var updater: CollectionUpdater<FakeView>?

        func performBatch(_ batch: CollectionBatch, setData: () -> Void, completion: @escaping () -> Void) {
            let stage = batch.stage
            if !animating.isEmpty { failures.append("a batch began while another was animating") }
            if Set(batch.reloadedItems).union(batch.reconfiguredItems) != Set(stage.items.reloaded)
                || batch.reloadedItems.count + batch.reconfiguredItems.count != stage.items.reloaded.count {
                failures.append("reloaded and reconfigured items are not the stage's changed items")
            }
            calls.append(.batch(stage))
            reloadedItems.append(batch.reloadedItems)
            guard let before = shown else {
                failures.append("a batch before the first reload")
                return
            }
            setData()
            let after = updater!.catalog!.shape
            // UIKit's check: the stage applied to what was shown must give the data source's counts.
            let violations = BatchUpdateSimulator.violations(of: Self.shapeOnly(stage), from: before, to: after)
            if !violations.isEmpty { failures.append("invalid update: \(violations)") }
            shown = after
            animating.append(completion)
        }

        func reloadAll(setData: () -> Void) {
            calls.append(.reload)
            setData()
            shown = updater!.catalog!.shape
        }

        /// Ends the oldest running animation.
        func finishAnimation() {
            guard !animating.isEmpty else { return }
            animating.removeFirst()()
        }

        static func shapeOnly(_ stage: Stage) -> Changeset {
            var stage = stage
            stage.items.reloaded = []
            stage.sections.reloaded = []
            return Changeset(stages: [stage])
        }
    }

    static func make() -> (FakeView, CollectionUpdater<FakeView>) {
        let view = FakeView()
        let updater = CollectionUpdater(target: view)
        view.updater = updater
        return (view, updater)
    }

    static func update(from a: Catalog, to b: Catalog) throws -> CatalogUpdate {
        var changeset = try Changeset(from: a, to: b)
        (changeset.fromRevision, changeset.toRevision) = (a.revision, b.revision)
        return CatalogUpdate(revision: b.revision, catalog: b, changeset: changeset, stages: changeset.stagedCatalogs(from: a, to: b))
    }

    /// Random successive catalogues from the diff's property tests.
    static func catalogs(count: Int, seed: UInt64) -> [Catalog] {
        var random = SplitMix64(seed: seed)
        var result: [Catalog] = []
        var previous = StagedCatalogsTests.catalogs(DiffPropertyTests.randomPair(&random)).0
        for revision in 1...count {
            var next = StagedCatalogsTests.catalogs(DiffPropertyTests.randomPair(&random)).1
            // Half the time an edit of the previous one, so that stages and moves occur.
            if revision % 2 == 0, let section = previous.sections.first, !section.items.isEmpty {
                next = previous
                next.sections[0].items.reverse()
                next.sections.append(Section(id: "n\(revision)", kind: .bookshelf, items: [next.sections[0].items.removeLast()]))
            }
            next.revision = revision
            result.append(next)
            previous = next
        }
        return result
    }

    @Test(arguments: 0..<4)
    func everyUpdateIsAppliedStageByStageOrReloaded(batch: Int) throws {
        let (view, updater) = Self.make()
        let catalogs = Self.catalogs(count: 60, seed: UInt64(300 + batch))
        updater.receive(.reset(catalogs[0]))
        #expect(view.calls == [.reload])
        for k in 1..<catalogs.count {
            updater.receive(try Self.update(from: catalogs[k - 1], to: catalogs[k]))
            // Sometimes the next update arrives mid-animation; otherwise animations end first.
            if k % 3 != 0 { while !view.animating.isEmpty { view.finishAnimation() } }
        }
        while !view.animating.isEmpty { view.finishAnimation() }
        #expect(view.failures == [])
        #expect(updater.catalog == catalogs.last)
        #expect(view.shown == catalogs.last?.shape)
        #expect(updater.lastRefusal == nil)
        let batches = view.calls.filter { $0 != .reload }.count
        #expect(batches > 30, "only \(batches) batches")
    }

    @Test func updatesDuringABatchAreCoalescedIntoOne() throws {
        let (view, updater) = Self.make()
        let shelf = { (revision: Int, ids: [String]) in
            Catalog(name: "c", revision: revision, sections: [Section(id: "s", kind: .bookshelf, items: ids.map {
                Item(id: $0, content: .book(Book(title: $0, cover: $0)))
            })])
        }
        let states = [shelf(1, ["a", "b", "c"]), shelf(2, ["b", "a", "c"]), shelf(3, ["b", "c", "a"]), shelf(4, ["c", "b", "a"])]
        updater.receive(.reset(states[0]))
        updater.receive(try Self.update(from: states[0], to: states[1]))
        #expect(view.animating.count == 1)
        // Two more while the first animates: no batch starts until it ends, then one batch.
        updater.receive(try Self.update(from: states[1], to: states[2]))
        updater.receive(try Self.update(from: states[2], to: states[3]))
        #expect(view.calls.count == 2)
        view.finishAnimation()
        #expect(view.calls.count == 3 && view.animating.count == 1)
        view.finishAnimation()
        #expect(view.failures == [] && updater.catalog == states[3] && view.shown == states[3].shape)
    }

    @Test func resetsOffScreenViewsLargeChangesAndRefusedChangesetsReload() throws {
        let (view, updater) = Self.make()
        let catalogs = Self.catalogs(count: 4, seed: 11)
        updater.receive(.reset(catalogs[0]))
        view.isOnScreen = false
        updater.receive(try Self.update(from: catalogs[0], to: catalogs[1]))
        #expect(view.calls == [.reload, .reload])
        view.isOnScreen = true
        updater.reloadThreshold = 0
        updater.receive(try Self.update(from: catalogs[1], to: catalogs[2]))
        #expect(view.calls.last == .reload && updater.catalog == catalogs[2])
        updater.reloadThreshold = 1_000
        // A changeset UIKit would refuse (claims to delete an item that is not there).
        var broken = try Self.update(from: catalogs[2], to: catalogs[3])
        broken.changeset?.stages.append(Stage(items: ItemChanges(deleted: [ItemPath(section: 99, item: 0)])))
        updater.receive(broken)
        #expect(view.calls.last == .reload && updater.catalog == catalogs[3])
        #expect(updater.lastRefusal != nil)
        #expect(view.failures == [])
    }

    static func shelf(_ revision: Int, _ ids: [String], titles: [String: String] = [:]) -> Catalog {
        Catalog(name: "c", revision: revision, sections: [Section(id: "s", kind: .bookshelf, items: ids.map {
            Item(id: $0, content: .book(Book(title: titles[$0] ?? $0, cover: $0)))
        })])
    }

    @Test func anUpdaterThatOutlivesItsViewDoesNothing() throws {
        var view: FakeView? = FakeView()
        let updater = CollectionUpdater(target: view!)
        view?.updater = updater
        updater.receive(.reset(Self.shelf(1, ["a", "b"])))
        #expect(view?.calls == [.reload])
        view = nil
        #expect(updater.target == nil)
        // Before: `unowned let target` trapped here.
        updater.receive(try Self.update(from: Self.shelf(1, ["a", "b"]), to: Self.shelf(2, ["b", "a"])))
        #expect(updater.catalog == Self.shelf(1, ["a", "b"]))
    }

    @Test func aMoveTheViewMadeIsNotAnimatedAgain() throws {
        let (view, updater) = Self.make()
        var shown: [Catalog] = []
        updater.didShow = { shown.append($0) }
        updater.receive(.reset(Self.shelf(1, ["a", "b", "c"])))
        // The user drags a to the end: UIKit has moved the cell; the data source is told.
        updater.viewMovedItem(from: ItemPath(section: 0, item: 0), to: ItemPath(section: 0, item: 2))
        view.shown = updater.catalog!.shape
        #expect(updater.catalog?.sections[0].items.map(\.id) == ["b", "c", "a"])
        // The store's echo of that move: nothing more to animate.
        updater.receive(try Self.update(from: Self.shelf(1, ["a", "b", "c"]), to: Self.shelf(2, ["b", "c", "a"])))
        #expect(view.calls == [.reload])
        #expect(updater.catalog == Self.shelf(2, ["b", "c", "a"]))
        #expect(shown.last == Self.shelf(2, ["b", "c", "a"]))

        // A second drag the store answers with more than the move (it displaced c to the front):
        // only that is animated, from what the view shows.
        updater.viewMovedItem(from: ItemPath(section: 0, item: 0), to: ItemPath(section: 0, item: 1))
        view.shown = updater.catalog!.shape
        updater.receive(try Self.update(from: Self.shelf(2, ["b", "c", "a"]), to: Self.shelf(3, ["c", "b", "a"])))
        #expect(view.calls.count == 1)
        #expect(updater.catalog == Self.shelf(3, ["c", "b", "a"]))

        updater.viewMovedItem(from: ItemPath(section: 0, item: 0), to: ItemPath(section: 0, item: 2))
        view.shown = updater.catalog!.shape
        #expect(updater.catalog?.sections[0].items.map(\.id) == ["b", "a", "c"])
        // The store refused that one: back to the store's catalogue, animated from the screen.
        updater.show(Self.shelf(3, ["c", "b", "a"]))
        #expect(view.calls.count == 2)
        view.finishAnimation()
        #expect(view.failures == [])
        #expect(view.shown == Self.shelf(3, ["c", "b", "a"]).shape)
        #expect(shown.last == Self.shelf(3, ["c", "b", "a"]))
    }

    @Test func refreshItemChoosesANewCellOrTheSameOneItemByItem() throws {
        let (view, updater) = Self.make()
        updater.refreshItem = { before, after in
            if case .book(let old) = before.content, case .book(let new) = after.content, old.title.count != new.title.count {
                return .reload
            }
            return .reconfigure
        }
        let before = Self.shelf(1, ["a", "b", "c"])
        let after = Self.shelf(2, ["a", "b", "c"], titles: ["a": "A", "b": "a longer title"])
        updater.receive(.reset(before))
        updater.receive(try Self.update(from: before, to: after))
        view.finishAnimation()
        #expect(view.failures == [])
        #expect(view.reloadedItems == [[ItemPath(section: 0, item: 1)]])
        guard case .batch(let stage) = view.calls.last else { Issue.record("no batch"); return }
        #expect(Set(stage.items.reloaded) == [ItemPath(section: 0, item: 0), ItemPath(section: 0, item: 1)])
    }

    @Test func runAppliesUpdatesUntilItsTaskIsCancelled() async throws {
        let (view, updater) = Self.make()
        let (updates, feed) = AsyncStream<CatalogUpdate>.makeStream()
        let (shownStream, shownFeed) = AsyncStream<Catalog>.makeStream()
        updater.didShow = { shownFeed.yield($0) }
        let running = Task { try await updater.run(updates) }
        var shown = shownStream.makeAsyncIterator()
        feed.yield(.reset(Self.shelf(1, ["a", "b"])))
        #expect(await shown.next() == Self.shelf(1, ["a", "b"]))
        running.cancel()
        // A cancelled run returns (the stream itself never ends), and applies nothing more.
        try await running.value
        feed.yield(try Self.update(from: Self.shelf(1, ["a", "b"]), to: Self.shelf(2, ["b", "a"])))
        #expect(view.calls == [.reload])
        #expect(view.failures == [])
    }
}
