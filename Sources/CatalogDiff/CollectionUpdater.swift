import CatalogModel

/// Drives a ``CatalogUpdateTarget`` from catalogue updates (docs/Live-updates.md), every decision
/// made here so that the UIKit side only forwards.
///
/// - Each stage is one batch, with the catalogue after that stage set inside it; stages run one
///   after another, never two batches at once.
/// - A reset, a view off screen, a changeset of more than ``reloadThreshold`` operations, or one
///   that does not start at the revision on screen becomes a reload.
/// - Updates that arrive while a batch runs wait; when it ends they are coalesced into one
///   changeset from what is on screen to the newest catalogue (the diff of the two).
/// - A move the view made itself (an interactive drag, ``viewMovedItem(from:to:)``) is taken as
///   shown: the store's echo of it is diffed against the screen, so only what the store did beyond
///   it (a displaced book) is animated, never the drag twice.
/// - In debug builds every changeset is checked with ``BatchUpdateSimulator`` before it is
///   applied; one that UIKit would refuse becomes a reload (and ``lastRefusal`` says why).
///
/// The updater lives on the main actor, as the views it drives do, and holds its view weakly: an
/// updater that outlives its view does nothing. ``run(_:)`` applies a sequence of updates until
/// its task is cancelled.
///
/// ```swift
/// let updater = CollectionUpdater(target: collectionView)
/// following = Task { try await updater.run(store.updates(of: "bookshelf")) }   // cancel it with the screen
/// ```
@MainActor
public final class CollectionUpdater<Target: CatalogUpdateTarget> {
    /// The view, while it exists.
    public private(set) weak var target: Target?
    /// The catalogue the data source answers with: what the view shows.
    public private(set) var catalog: Catalog?
    /// Changesets with more operations than this are applied as a reload.
    public var reloadThreshold: Int
    /// Why the last changeset was applied as a reload instead (debug builds check each one).
    public private(set) var lastRefusal: String?
    /// For an item whose content changed, given its value before and after: keep the cell and
    /// fill it again (the default, also when this is nil) or give it a new one.
    public var refreshItem: ((_ before: Item, _ after: Item) -> ItemRefresh)?
    /// Called each time the view shows a new catalogue in full: after the last batch of an
    /// update (its animations begun and ended), after a reload, or when an update needed no batch.
    public var didShow: ((Catalog) -> Void)?

    private var applying = false
    /// The newest update that arrived while a batch ran.
    private var pending: CatalogUpdate?
    /// Whether ``catalog`` holds changes the view made itself (no store revision has them yet):
    /// the next update is then diffed against it, whatever revision its changeset starts at.
    private var showsLocalChanges = false

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

    /// Applies `updates` in turn until the sequence ends, the task is cancelled (then it returns),
    /// or the view is gone. An error of the sequence is thrown.
    public func run<Updates: AsyncSequence>(_ updates: Updates) async throws where Updates.Element == CatalogUpdate {
        for try await update in updates {
            if Task.isCancelled || target == nil { return }
            receive(update)
        }
    }

    /// Animates from what is on screen to `catalog` (the diff of the two): after a local move the
    /// store refused, to put the view back as the store has it.
    public func show(_ catalog: Catalog) {
        showsLocalChanges = true
        receive(CatalogUpdate(revision: catalog.revision, catalog: catalog, changeset: nil, stages: [catalog]))
    }

    /// Records a move the view has already made (UIKit's interactive movement: call it from the
    /// data source's `moveItemAt:to:`, before `store.move`): the item at `source` is now at
    /// `destination` (in the catalogue after the move), so the data source answers as the view
    /// shows, and the store's update of that move animates nothing more. A move reported while a
    /// batch runs leaves the view's state to a reload once the batch ends.
    public func viewMovedItem(from source: ItemPath, to destination: ItemPath) {
        guard var moved = catalog, moved.sections.indices.contains(source.section),
              moved.sections[source.section].items.indices.contains(source.item),
              moved.sections.indices.contains(destination.section) else { return }
        let item = moved.sections[source.section].items.remove(at: source.item)
        let items = moved.sections[destination.section].items
        moved.sections[destination.section].items.insert(item, at: min(max(destination.item, 0), items.count))
        catalog = moved
        showsLocalChanges = true
        if applying { pendingReload = true }
    }

    private var pendingReload = false

    private func apply(_ update: CatalogUpdate) {
        guard let target else { return }
        guard let current = catalog, target.isOnScreen, !pendingReload else { return reload(update.catalog) }
        var update = update
        if update.changeset == nil && !showsLocalChanges { return reload(update.catalog) }
        if showsLocalChanges || update.changeset?.fromRevision != current.revision {
            // Not from what is on screen (coalesced, a gap, a local move): the changeset from here.
            guard let changeset = try? Changeset(from: current, to: update.catalog) else { return reload(update.catalog) }
            update = CatalogUpdate(revision: update.revision, catalog: update.catalog, changeset: changeset,
                                   stages: changeset.stagedCatalogs(from: current, to: update.catalog))
        }
        showsLocalChanges = false
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
            didShow?(update.catalog)
            return
        }
        applying = true
        run(stages: changeset.stages, data: update.stages, from: 0, before: current)
    }

    private func run(stages: [Stage], data: [Catalog], from k: Int, before: Catalog) {
        guard k < stages.count, let target else { return finished() }
        let batch = CollectionBatch(stage: stages[k], reloadedItems: reloaded(in: stages[k], before: before, after: data[k]))
        target.performBatch(batch, setData: { self.catalog = data[k] }) { [weak self] in
            self?.run(stages: stages, data: data, from: k + 1, before: data[k])
        }
    }

    /// The changed items of `stage` that ``refreshItem`` gives a new cell. Only the stage's few
    /// reloaded items are looked up in the catalogue after it (a scan that stops once all are found).
    private func reloaded(in stage: Stage, before: Catalog, after: Catalog) -> [ItemPath] {
        guard let refreshItem, !stage.items.reloaded.isEmpty else { return [] }
        var wanted: [String: Item] = [:]
        for path in stage.items.reloaded
        where before.sections.indices.contains(path.section) && before.sections[path.section].items.indices.contains(path.item) {
            let item = before.sections[path.section].items[path.item]
            wanted[item.id] = item
        }
        var reloadedIDs: Set<String> = []
        var remaining = wanted.count
        search: for section in after.sections {
            for item in section.items {
                guard let old = wanted[item.id] else { continue }
                if refreshItem(old, item) == .reload { reloadedIDs.insert(item.id) }
                remaining -= 1
                if remaining == 0 { break search }
            }
        }
        return stage.items.reloaded.filter { path in
            before.sections.indices.contains(path.section) && before.sections[path.section].items.indices.contains(path.item)
                && reloadedIDs.contains(before.sections[path.section].items[path.item].id)
        }
    }

    private func finished() {
        applying = false
        if let shown = catalog, !pendingReload, pending == nil { didShow?(shown) }
        if let next = pending {
            pending = nil
            apply(next)
        } else if pendingReload, let shown = catalog {
            reload(shown)
        }
    }

    private func reload(_ catalog: Catalog) {
        pendingReload = false
        showsLocalChanges = false
        guard let target else { return }
        target.reloadAll { self.catalog = catalog }
        didShow?(catalog)
    }
}
