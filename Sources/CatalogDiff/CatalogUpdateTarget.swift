import CatalogModel

/// A collection view, or anything that shows a catalogue the way one does: the few calls
/// ``CollectionUpdater`` makes. The UIKit conformance forwards each to `UICollectionView`;
/// tests use a fake that enforces UIKit's rules.
///
/// Main-actor isolated, as UIKit's views are: driving a view from another task is a compile
/// error, not a trap at run time.
@MainActor
public protocol CatalogUpdateTarget: AnyObject {
    /// Whether the view is in a window. Updates to a view off screen become reloads, as UIKit
    /// does not animate them and asks the data source again when the view appears.
    var isOnScreen: Bool { get }

    /// One `performBatchUpdates` call: `setData` first, inside the batch (the data source then
    /// answers with the catalogue after the stage), then the stage's deletes, inserts, moves,
    /// reconfigured and reloaded items; `completion` once the batch has been applied.
    func performBatch(_ batch: CollectionBatch, setData: () -> Void, completion: @escaping () -> Void)

    /// `reloadData()` after `setData`.
    func reloadAll(setData: () -> Void)
}

/// One batch update of a collection view: a stage of a changeset, with the items whose content
/// changed split between those whose cell is kept and filled again (`reconfigureItems`) and those
/// given a new cell (`reloadItems`) — ``CollectionUpdater/refreshItem`` decides, item by item.
public struct CollectionBatch: Sendable, Hashable {
    /// The stage: its deletes, inserts and moves, and in `stage.items.reloaded` every item whose
    /// content changed (index paths before the stage, as UIKit takes them).
    public var stage: Stage
    /// Of `stage.items.reloaded`, those to reload: a new cell from the data source.
    public var reloadedItems: [ItemPath]

    public init(stage: Stage, reloadedItems: [ItemPath] = []) {
        self.stage = stage
        self.reloadedItems = reloadedItems
    }

    /// Of `stage.items.reloaded`, those to reconfigure: the cell stays and is filled again.
    public var reconfiguredItems: [ItemPath] {
        if reloadedItems.isEmpty { return stage.items.reloaded }
        let reloaded = Set(reloadedItems)
        return stage.items.reloaded.filter { !reloaded.contains($0) }
    }
}

/// How a cell whose item's content changed is brought up to date.
public enum ItemRefresh: Sendable, Hashable {
    /// The cell stays and the data source fills it again (`reconfigureItems`): cheap, no
    /// cross-fade, the cell's own state (a playing preview, a selection) kept. The default.
    case reconfigure
    /// The data source gives a new cell (`reloadItems`): for a change that needs another cell
    /// class or registration.
    case reload
}
