// The code examples of the DocC articles in Sources/CatalogStore/CatalogStore.docc, compiled here
// and run by DocumentedCodeTests, which also checks that each article shows exactly this code.

// DOC: Sources/CatalogStore/CatalogStore.docc/MovesAndCapacity.md
import CatalogModel
import CatalogStore

/// Two shelves of four: a full shelf refuses a book, displaces its last one, or swaps.
func movesWithCapacity(database: String) throws -> [[String]] {
    func book(_ id: String) -> Item { Item(id: id, content: .book(Book(title: id.uppercased(), cover: id))) }
    let store = try CatalogStore(path: database)
    try store.replace(Catalog(name: "shelves", sections: [
        Section(id: "top", kind: .bookshelf, items: ["a", "b", "c", "d"].map(book)),  // 4 books: full
        Section(id: "bottom", kind: .bookshelf, items: ["e"].map(book)),
    ]))

    // Into a full shelf: refused with a typed error, and nothing changes.
    do {
        try store.move(item: "e", toSection: "top", in: "shelves")
    } catch {
        print(error)  // catalogue "shelves": operation 0 (moveItem): shelf "top" is full: it holds at most 4 books
    }

    // displace: "e" lands at the front; the top shelf's last book goes to the next shelf.
    try store.move(item: "e", toSection: "top", index: 0, policy: .displace, in: "shelves")
    // top: e a b c · bottom: d

    // swap: "d" takes the place of "a", which takes the place "d" left.
    let swapped = try store.move(item: "d", toSection: "top", index: 1, policy: .swap, in: "shelves")
    print(swapped.revision, swapped.changeset.stages.count)  // 3 1

    // A move within one shelf never needs room.
    try store.move(item: "c", toSection: "top", index: 0, in: "shelves")
    return try store.catalog(named: "shelves").sections.map { $0.items.map(\.id) }  // [["c", "e", "d", "b"], ["a"]]
}
// DOC: end

// DOC: Sources/CatalogStore/CatalogStore.docc/ChangesetsAndUIKit.md
import CatalogDiff

/// A collection view's stand-in: records what UIKit would be asked to do.
@MainActor final class RecordingView: CatalogUpdateTarget {
    var isOnScreen = true
    var calls: [String] = []

    func performBatch(_ batch: CollectionBatch, setData: () -> Void, completion: @escaping () -> Void) {
        setData()  // the data source now answers with the catalogue after this stage
        calls.append("batch: \(batch.stage.items.moved.count) moved, \(batch.stage.items.inserted.count) inserted")
        completion()
    }

    func reloadAll(setData: () -> Void) {
        setData()
        calls.append("reload")
    }
}

/// The changeset between two versions of a catalogue, checked, and applied stage by stage.
@MainActor func changesetsStageByStage() throws -> [String] {
    func icon(_ name: String) -> Item { Item(id: name, content: .icon(Icon(name: name, icon: "\(name).png"))) }
    let before = Catalog(name: "apps", revision: 1, sections: [Section(id: "home", kind: .icons, items: ["mail", "maps", "notes"].map(icon))])
    let after = Catalog(name: "apps", revision: 2, sections: [Section(id: "home", kind: .icons, items: ["notes", "mail", "music"].map(icon))])

    // The fewest moves, in stages UIKit accepts; the simulator replays them as UIKit would.
    let changeset = try Changeset(from: before, to: after)
    precondition(changeset.violations(from: before, to: after).isEmpty)

    // CollectionUpdater drives a view: the data for each stage is set inside its batch, a reset
    // or a view off screen becomes a reload, updates arriving meanwhile are coalesced.
    let view = RecordingView()
    let updater = CollectionUpdater(target: view)
    updater.receive(.reset(before))
    updater.receive(CatalogUpdate(revision: 2, catalog: after, changeset: changeset,
                                  stages: changeset.stagedCatalogs(from: before, to: after)))
    return view.calls  // ["reload", "batch: 1 moved, 1 inserted"]
}
// DOC: end

// DOC: Sources/CatalogStore/CatalogStore.docc/Layouts.md
import CatalogLayout

/// A shelf layout on a phone's screen: what is visible, what is under a finger, a picture.
func shelvesOnAPhone(_ catalog: Catalog) throws -> (visible: Int, touched: ItemPath?, svg: String) {
    let input = LayoutInput(catalog)
    let configuration = LayoutConfiguration(style: .shelf, itemSize: Size(width: 80, height: 120),
                                            sectionInset: Insets(top: 12, left: 12, bottom: 12, right: 12), headerHeight: 32)
    let layout = try Layout(input, configuration: configuration, viewportSize: Size(width: 390, height: 844))

    // Rect queries answer in O(log n + k): cells, headers and shelf boards in the first screenful.
    let visible = layout.elements(in: Rect(x: 0, y: 0, width: 390, height: 844))
    // The item under a point, as a drag or a tap needs it.
    let touched = layout.indexPath(at: Point(x: 60, y: 100))
    // An SVG picture of the same layout, to look at.
    let svg = LayoutPicture(layout: layout, input: input, elements: visible).svg
    return (visible.count, touched, svg)
}
// DOC: end

// DOC: Sources/CatalogStore/CatalogStore.docc/LiveViews.md
import CatalogViews

/// A video feed grouped by status, most played first, kept live in a collection view.
@MainActor func feedKeptLive(database: String) async throws -> [String] {
    func video(_ id: String, plays: Int, _ status: VideoStatus) -> Item {
        Item(id: id, content: .video(Video(title: id, cover: "\(id).jpg", playCount: plays, status: status)))
    }
    let store = try CatalogStore(path: database)
    try store.replace(Catalog(name: "feed", sections: [
        Section(id: "today", kind: .videos, items: [video("cats", plays: 900, .published), video("draft", plays: 10, .draft)]),
        Section(id: "earlier", kind: .videos, items: [video("birds", plays: 500, .published), video("dogs", plays: 300, .recommended)]),
    ]))

    // What NSFetchedResultsController is for: a filter, sort keys and a section per status.
    let feed = try ViewDefinition(where: #"status in ["published", "recommended"]"#, sort: "-playCount,title", group: "status")
    let view = RecordingView()
    let updater = CollectionUpdater(target: view)
    var updates = store.updates(of: "feed", view: feed).makeAsyncIterator()

    // First the view as it stands: "published" holds cats and birds, "recommended" dogs.
    let first = try await updates.next()!
    updater.receive(first)

    // Birds overtake cats: one write, one move in the view (then birds' new count reloaded at
    // its new place), nothing recomputed but birds' place.
    try await store.apply(Batch(operations: [.updateItem(id: "birds", fields: ItemFields(playCount: 1_200))]), to: "feed")
    let next = try await updates.next()!
    updater.receive(next)
    return view.calls + next.catalog.sections.map { "\($0.id): " + $0.items.map(\.id).joined(separator: " ") }
    // ["reload", "batch: 1 moved, 0 inserted", "batch: 0 moved, 0 inserted", "published: birds cats", "recommended: dogs"]
}
// DOC: end
