import CatalogModel

/// A collection view, or anything that shows a catalogue the way one does: the few calls
/// ``CollectionUpdater`` makes. The UIKit conformance forwards each to `UICollectionView`;
/// tests use a fake that enforces UIKit's rules.
public protocol CatalogUpdateTarget: AnyObject {
    /// Whether the view is in a window. Updates to a view off screen become reloads, as UIKit
    /// does not animate them and asks the data source again when the view appears.
    var isOnScreen: Bool { get }

    /// One `performBatchUpdates` call: `setData` first, inside the batch (the data source then
    /// answers with the catalogue after the stage), then the stage's deletes, inserts, moves and
    /// reloads; `completion` once the batch has been applied.
    func performBatch(_ stage: Stage, setData: () -> Void, completion: @escaping () -> Void)

    /// `reloadData()` after `setData`.
    func reloadAll(setData: () -> Void)
}

/// Drives a ``CatalogUpdateTarget`` from catalogue updates (docs/Live-updates.md), every decision made here
/// so that the UIKit side only forwards.
///
/// - Each stage is one batch, with the catalogue after that stage set inside it; stages run one
///   after another, never two batches at once.
/// - A reset, a view off screen, a changeset of more than ``reloadThreshold`` operations, or one
///   that does not start at the revision on screen becomes a reload.
/// - Updates that arrive while a batch runs wait; when it ends they are coalesced into one
///   changeset from what is on screen to the newest catalogue (the diff of the two).
/// - In debug builds every changeset is checked with ``BatchUpdateSimulator`` before it is
///   applied; one that UIKit would refuse becomes a reload (and ``lastRefusal`` says why).
///
/// Call it on the thread that owns the view (the main thread for UIKit).
public final class CollectionUpdater<Target: CatalogUpdateTarget> {
    public unowned let target: Target
    /// The catalogue the data source answers with.
    public private(set) var catalog: Catalog?
    /// Changesets with more operations than this are applied as a reload.
    public var reloadThreshold: Int
    /// Why the last changeset was applied as a reload instead (debug builds check each one).
    public private(set) var lastRefusal: String?

    private var applying = false
    /// The newest update that arrived while a batch ran.
    private var pending: CatalogUpdate?

    public init(target: Target, reloadThreshold: Int = 1_000) {
        self.target = target
        self.reloadThreshold = reloadThreshold
    }

    /// Takes an update: applies it now, or after the batch that is running.
    public func receive(_ update: CatalogUpdate) {
        if applying {
            // Only the newest matters: the catalogue on screen is diffed against it.
            pending = update
            return
        }
        apply(update)
    }

    private func apply(_ update: CatalogUpdate) {
        guard let current = catalog, target.isOnScreen else { return reload(update.catalog) }
        var update = update
        if update.changeset?.fromRevision != current.revision {
            // Not from what is on screen (coalesced, or a gap): the changeset from here.
            guard let changeset = try? Changeset(from: current, to: update.catalog) else { return reload(update.catalog) }
            update = CatalogUpdate(revision: update.revision, catalog: update.catalog, changeset: changeset,
                                   stages: changeset.stagedCatalogs(from: current, to: update.catalog))
        }
        guard let changeset = update.changeset, changeset.operationCount <= reloadThreshold else { return reload(update.catalog) }
        #if DEBUG
        let violations = changeset.violations(from: current, to: update.catalog)
        if !violations.isEmpty {
            lastRefusal = violations.map(\.description).joined(separator: "; ")
            return reload(update.catalog)
        }
        #endif
        if changeset.stages.isEmpty {
            catalog = update.catalog
            return
        }
        applying = true
        run(stages: changeset.stages, data: update.stages, from: 0)
    }

    private func run(stages: [Stage], data: [Catalog], from k: Int) {
        guard k < stages.count else { return finished() }
        target.performBatch(stages[k], setData: { self.catalog = data[k] }) { [weak self] in
            self?.run(stages: stages, data: data, from: k + 1)
        }
    }

    private func finished() {
        applying = false
        if let next = pending {
            pending = nil
            apply(next)
        }
    }

    private func reload(_ catalog: Catalog) {
        target.reloadAll { self.catalog = catalog }
    }
}
