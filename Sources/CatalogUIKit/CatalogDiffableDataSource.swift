#if canImport(UIKit) && !os(watchOS)
import CatalogDiff
import CatalogModel
import UIKit

/// A `UICollectionViewDiffableDataSource` fed by catalogue updates, for screens built on diffable
/// data sources and compositional layouts rather than on ``CollectionUpdater``.
///
/// - Each update becomes a snapshot of section and item ids (``IdentifierSnapshot``), with the
///   items whose content changed marked to reconfigure — a snapshot compares ids only, so without
///   them an edited title would never reach its cell.
/// - The cell provider is handed the ``CatalogModel/Item`` itself, looked up by id.
/// - With ``move`` set, items can be reordered (`reorderingHandlers`): the drag's one move is
///   written to the store with its capacity rules; if the store refuses it, the data source shows
///   the store's order again. Return ``targetIndexPath(forMoveOfItemFrom:atCurrent:toProposed:)``
///   from the delegate's `collectionView(_:targetIndexPathForMoveOfItemFromOriginalIndexPath:atCurrentIndexPath:toProposedIndexPath:)`
///   so that a full shelf is never proposed.
///
/// ```swift
/// let source = CatalogDiffableDataSource(collectionView: collectionView) { view, path, item in
///     view.dequeueConfiguredReusableCell(using: registration, for: path, item: item)
/// }
/// source.move = { try await store.move(item: $0, toSection: $1, index: $2) }
/// following = Task { [source] in try await source.run(store.updates(of: "bookshelf")) }
/// ```
@MainActor
public final class CatalogDiffableDataSource {
    public typealias Snapshot = NSDiffableDataSourceSnapshot<String, String>

    /// UIKit's data source (set as the collection view's data source by its initialiser).
    public let dataSource: UICollectionViewDiffableDataSource<String, String>
    /// The catalogue of the last update applied.
    public private(set) var catalog: Catalog?
    /// Writes a person's move to the store: the item, the destination section and the index there
    /// (`store.move(item:toSection:index:)`). Reordering is offered only while it is set; when it
    /// throws, the store's order is shown again.
    public var move: ((_ item: String, _ section: String, _ index: Int) async throws -> Void)?
    /// Called when a snapshot has been applied (its animations ended).
    public var didShow: ((Catalog) -> Void)?

    /// The shown catalogue's items by id, made when a cell's index path does not hold its item
    /// (during a drag, before the store's order returns); nil until then, and after each update.
    private var itemsByID: [String: Item]?

    public init(collectionView: UICollectionView,
                cellProvider: @escaping (UICollectionView, IndexPath, Item) -> UICollectionViewCell?) {
        var lookUp: (String, IndexPath) -> Item? = { _, _ in nil }
        dataSource = UICollectionViewDiffableDataSource<String, String>(collectionView: collectionView) { view, path, id in
            lookUp(id, path).flatMap { cellProvider(view, path, $0) }
        }
        lookUp = { [weak self] id, path in self?.item(id, at: path) }
        dataSource.reorderingHandlers.canReorderItem = { [weak self] _ in self?.move != nil }
        dataSource.reorderingHandlers.didReorder = { [weak self] transaction in
            self?.didReorder(to: IdentifierSnapshot(transaction.finalSnapshot))
        }
    }

    /// Applies `update`: its catalogue's snapshot, the changed items reconfigured, animated unless
    /// `animated` is false or nothing was shown before.
    public func apply(_ update: CatalogUpdate, animated: Bool = true) {
        // Every id in both snapshots whose content differs: the changeset's reloads do not name
        // an item that also moved or changed kind, which a snapshot keeps as the same item.
        show(update.catalog, animated: animated, changed: catalog.map(update.catalog.itemsWithNewContent(since:)))
    }

    /// Applies `updates` in turn until the sequence ends or the task is cancelled.
    public func run<Updates: AsyncSequence>(_ updates: Updates) async throws where Updates.Element == CatalogUpdate {
        for try await update in updates {
            if Task.isCancelled { return }
            apply(update)
        }
    }

    /// Where a drag from `original` may propose to drop when the person is over `proposed`: for
    /// the delegate's `targetIndexPathForMoveOfItemFromOriginalIndexPath`; never a full shelf
    /// (``CatalogModel/Catalog/moveTarget(from:current:proposed:)``).
    public func targetIndexPath(forMoveOfItemFrom original: IndexPath, atCurrent current: IndexPath,
                                toProposed proposed: IndexPath) -> IndexPath {
        guard let catalog else { return current }
        return IndexPath(catalog.moveTarget(from: ItemPath(original), current: ItemPath(current), proposed: ItemPath(proposed)))
    }

    /// Shows `catalog`, reconfiguring the cells of `changed` (nil: nothing was shown before).
    private func show(_ catalog: Catalog, animated: Bool, changed: [String]?) {
        let previous = self.catalog
        self.catalog = catalog
        itemsByID = nil
        var snapshot = Self.snapshot(IdentifierSnapshot(catalog))
        if let changed, !changed.isEmpty { snapshot.reconfigureItems(changed) }
        dataSource.apply(snapshot, animatingDifferences: animated && previous != nil) { [weak self] in
            self?.didShow?(catalog)
        }
    }

    /// The item `id`, which the data source shows at `path`: found there in the catalogue, as after
    /// every update; else (during a drag) by id.
    private func item(_ id: String, at path: IndexPath) -> Item? {
        if let catalog, catalog.sections.indices.contains(path.section),
           catalog.sections[path.section].items.indices.contains(path.item),
           catalog.sections[path.section].items[path.item].id == id {
            return catalog.sections[path.section].items[path.item]
        }
        if itemsByID == nil, let catalog {
            itemsByID = Dictionary(catalog.sections.flatMap(\.items).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        }
        return itemsByID?[id]
    }

    /// The data source already shows the drag's order: write its one move to the store, or put
    /// the store's order back when there is no such move or the store refuses it.
    private func didReorder(to final: IdentifierSnapshot) {
        guard let catalog, let move,
              case .moveItem(let item, let section, let index?, _) = IdentifierSnapshot(catalog).move(to: final) else {
            if let catalog { show(catalog, animated: true, changed: []) }
            return
        }
        Task { [weak self] in
            do {
                try await move(item, section, index)
            } catch {
                guard let self, let catalog = self.catalog else { return }
                self.show(catalog, animated: true, changed: [])
            }
        }
    }

    private static func snapshot(_ ids: IdentifierSnapshot) -> Snapshot {
        var snapshot = Snapshot()
        snapshot.appendSections(ids.sections.map(\.id))
        for section in ids.sections { snapshot.appendItems(section.items, toSection: section.id) }
        return snapshot
    }
}

extension IdentifierSnapshot {
    /// The ids of a diffable data source's snapshot.
    public init(_ snapshot: NSDiffableDataSourceSnapshot<String, String>) {
        self.init(sections: snapshot.sectionIdentifiers.map { Section(id: $0, items: snapshot.itemIdentifiers(inSection: $0)) })
    }
}
#endif
