#if canImport(UIKit) && !os(watchOS)
import CatalogDiff
import CatalogLayout
import CatalogModel
import UIKit

// UIKit's side of live updates and layouts. Every decision is made in code tested on every
// platform (`CollectionUpdater`, `Layout`, `LayoutTransition`, `MoveSession`, `Stage(_:)`);
// this file forwards to UIKit and converts types. It is compiled only where UIKit exists.

/// A collection view as the target of a ``CollectionUpdater``: each stage one
/// `performBatchUpdates` with its data set inside the batch; content-only changes as
/// `reconfigureItems` (the cell kept and filled again) or, where the updater's `refreshItem` says
/// so, `reloadItems`.
///
/// The names are module-qualified so that the conformance reads the same inside this package
/// (where SwiftPM builds it) and to a reader outside it: UIKit's class, CatalogDiff's protocol.
extension UIKit.UICollectionView: CatalogDiff.CatalogUpdateTarget {
    public var isOnScreen: Bool { window != nil }

    public func performBatch(_ batch: CollectionBatch, setData: () -> Void, completion: @escaping () -> Void) {
        withoutActuallyEscaping(setData) { setData in
            performBatchUpdates({ [self] in
                setData()
                let sections = batch.stage.sections
                deleteSections(IndexSet(sections.deleted))
                insertSections(IndexSet(sections.inserted))
                reloadSections(IndexSet(sections.reloaded))
                for move in sections.moved { moveSection(move.from, toSection: move.to) }
                let items = batch.stage.items
                deleteItems(at: items.deleted.map(IndexPath.init))
                insertItems(at: items.inserted.map(IndexPath.init))
                reconfigureItems(at: batch.reconfiguredItems.map(IndexPath.init))
                if !batch.reloadedItems.isEmpty { reloadItems(at: batch.reloadedItems.map(IndexPath.init)) }
                for move in items.moved { moveItem(at: IndexPath(move.from), to: IndexPath(move.to)) }
            }, completion: { _ in completion() })
        }
    }

    public func reloadAll(setData: () -> Void) {
        setData()
        reloadData()
    }
}

/// A `UICollectionViewLayout` that answers from ``Layout``: the frames of the configured style
/// (flow, waterfall, circular, shelf, carousel), rect queries, supplementary and decoration views,
/// the start and end of animated cells from ``LayoutTransition``, scrolling targets, and the
/// target of an interactive move from ``MoveSession`` (a full shelf is never proposed).
///
/// `catalog` supplies what the data source shows (``CollectionUpdater/catalog``). Register the
/// decoration view class for ``CatalogCollectionViewLayout/shelfKind`` when the style is shelf.
open class CatalogCollectionViewLayout: UICollectionViewLayout {
    /// The element kind of a shelf board.
    public static let shelfKind = "CatalogKit.shelf"

    public var configuration: LayoutConfiguration {
        didSet {
            needsInput = true
            invalidateLayout()
        }
    }
    /// The catalogue the data source answers with at this moment.
    public var catalog: () -> Catalog?

    private var layout: Layout?
    private var previous: Layout?
    private var transition: LayoutTransition?
    private var moveSession: MoveSession?
    /// Whether the next `prepare()` must read the catalogue again (new data or configuration);
    /// a scroll only moves the offset.
    private var needsInput = true

    public init(configuration: LayoutConfiguration, catalog: @escaping () -> Catalog?) {
        self.configuration = configuration
        self.catalog = catalog
        super.init()
    }

    public required init?(coder: NSCoder) { nil }

    open override func invalidateLayout(with context: UICollectionViewLayoutInvalidationContext) {
        if context.invalidateEverything || context.invalidateDataSourceCounts { needsInput = true }
        super.invalidateLayout(with: context)
    }

    open override func prepare() {
        super.prepare()
        guard let collectionView else { return }
        let viewport = Size(width: Double(collectionView.bounds.width), height: Double(collectionView.bounds.height))
        let offset = Point(collectionView.contentOffset)
        if !needsInput, var kept = layout, kept.viewportSize == viewport, kept.configuration == configuration {
            // Scrolling (pinned headers, a carousel's scaling): the frames stay, the offset moves.
            kept.contentOffset = offset
            layout = kept
            return
        }
        needsInput = false
        previous = layout
        let input = catalog().map(LayoutInput.init) ?? LayoutInput()
        if var kept = layout, kept.configuration == configuration, (try? kept.prepare(input, viewportSize: viewport)) != nil {
            kept.contentOffset = offset
            layout = kept
        } else {
            layout = try? Layout(input, configuration: configuration, viewportSize: viewport, contentOffset: offset)
        }
    }

    open override var collectionViewContentSize: CGSize {
        layout.map { CGSize(width: $0.contentSize.width, height: $0.contentSize.height) } ?? .zero
    }

    open override func layoutAttributesForElements(in rect: CGRect) -> [UICollectionViewLayoutAttributes]? {
        layout?.elements(in: Rect(rect)).map(Self.attributes)
    }

    open override func layoutAttributesForItem(at indexPath: IndexPath) -> UICollectionViewLayoutAttributes? {
        layout?.attributes(forItemAt: ItemPath(indexPath)).map(Self.attributes)
    }

    open override func layoutAttributesForSupplementaryView(ofKind elementKind: String,
                                                            at indexPath: IndexPath) -> UICollectionViewLayoutAttributes? {
        guard let kind = Self.kind(elementKind) else { return nil }
        return layout?.attributes(forSupplementary: kind, inSection: indexPath.section).map(Self.attributes)
    }

    open override func layoutAttributesForDecorationView(ofKind elementKind: String,
                                                         at indexPath: IndexPath) -> UICollectionViewLayoutAttributes? {
        guard elementKind == Self.shelfKind else { return nil }
        return layout?.attributes(forSupplementary: .decoration, inSection: indexPath.section).map(Self.attributes)
    }

    open override func shouldInvalidateLayout(forBoundsChange newBounds: CGRect) -> Bool {
        guard let layout else { return true }
        // A new size lays out again; so does scrolling, where the layout depends on the offset.
        return newBounds.size != collectionView?.bounds.size || layout.dependsOnContentOffset
    }

    open override func targetContentOffset(forProposedContentOffset proposedContentOffset: CGPoint,
                                           withScrollingVelocity velocity: CGPoint) -> CGPoint {
        guard let layout else { return proposedContentOffset }
        let target = layout.targetContentOffset(proposed: Point(proposedContentOffset), velocity: Point(velocity))
        return CGPoint(x: target.x, y: target.y)
    }

    // MARK: Animated updates

    open override func prepare(forCollectionViewUpdates updateItems: [UICollectionViewUpdateItem]) {
        super.prepare(forCollectionViewUpdates: updateItems)
        guard let previous, let layout else { return }
        transition = try? LayoutTransition(from: previous, to: layout, stage: Stage(updateItems.compactMap(Self.update)))
    }

    open override func finalizeCollectionViewUpdates() {
        super.finalizeCollectionViewUpdates()
        transition = nil
    }

    open override func initialLayoutAttributesForAppearingItem(at itemIndexPath: IndexPath) -> UICollectionViewLayoutAttributes? {
        transition?.initialAttributes(forAppearingItemAt: ItemPath(itemIndexPath)).map(Self.attributes)
            ?? super.initialLayoutAttributesForAppearingItem(at: itemIndexPath)
    }

    open override func finalLayoutAttributesForDisappearingItem(at itemIndexPath: IndexPath) -> UICollectionViewLayoutAttributes? {
        transition?.finalAttributes(forDisappearingItemAt: ItemPath(itemIndexPath)).map(Self.attributes)
            ?? super.finalLayoutAttributesForDisappearingItem(at: itemIndexPath)
    }

    // MARK: Interactive moves

    open override func targetIndexPath(forInteractivelyMovingItem previousIndexPath: IndexPath,
                                       withPosition position: CGPoint) -> IndexPath {
        guard let layout else { return previousIndexPath }
        if moveSession == nil, let catalog = catalog() {
            moveSession = MoveSession(catalog: catalog, layout: layout, beginAt: Point(position))
        }
        guard var session = moveSession else { return previousIndexPath }
        let proposal = session.update(to: Point(position), in: layout)
        moveSession = session
        return IndexPath(proposal)
    }

    open override func invalidationContextForEndingInteractiveMovementOfItems(
        toFinalIndexPaths indexPaths: [IndexPath], previousIndexPaths: [IndexPath], movementCancelled: Bool
    ) -> UICollectionViewLayoutInvalidationContext {
        moveSession = nil
        return super.invalidationContextForEndingInteractiveMovementOfItems(
            toFinalIndexPaths: indexPaths, previousIndexPaths: previousIndexPaths, movementCancelled: movementCancelled)
    }

    // MARK: Conversions

    private static func attributes(_ element: LayoutAttributes) -> UICollectionViewLayoutAttributes {
        let path = IndexPath(element.indexPath)
        let attributes = switch element.kind {
        case .cell: UICollectionViewLayoutAttributes(forCellWith: path)
        case .header: UICollectionViewLayoutAttributes(forSupplementaryViewOfKind: UICollectionView.elementKindSectionHeader, with: path)
        case .footer: UICollectionViewLayoutAttributes(forSupplementaryViewOfKind: UICollectionView.elementKindSectionFooter, with: path)
        case .decoration: UICollectionViewLayoutAttributes(forDecorationViewOfKind: shelfKind, with: path)
        }
        attributes.frame = CGRect(x: element.frame.x, y: element.frame.y, width: element.frame.width, height: element.frame.height)
        if element.scale != 1 { attributes.transform = CGAffineTransform(scaleX: element.scale, y: element.scale) }
        attributes.alpha = element.alpha
        attributes.zIndex = element.zIndex
        attributes.isHidden = element.hidden
        return attributes
    }

    private static func kind(_ elementKind: String) -> ElementKind? {
        switch elementKind {
        case UICollectionView.elementKindSectionHeader: .header
        case UICollectionView.elementKindSectionFooter: .footer
        case shelfKind: .decoration
        default: nil
        }
    }

    /// A section's update has an index path of one index (or an item of `NSNotFound`).
    private static func update(_ item: UICollectionViewUpdateItem) -> CollectionViewUpdate? {
        func isSection(_ path: IndexPath) -> Bool { path.count < 2 || path[1] == NSNotFound }
        let before = item.indexPathBeforeUpdate, after = item.indexPathAfterUpdate
        switch item.updateAction {
        case .insert:
            guard let after else { return nil }
            return isSection(after) ? .insertSection(after[0]) : .insertItem(ItemPath(after))
        case .delete:
            guard let before else { return nil }
            return isSection(before) ? .deleteSection(before[0]) : .deleteItem(ItemPath(before))
        case .reload:
            guard let before else { return nil }
            return isSection(before) ? .reloadSection(before[0]) : .reloadItem(ItemPath(before))
        case .move:
            guard let before, let after else { return nil }
            return isSection(before) ? .moveSection(from: before[0], to: after[0])
                : .moveItem(from: ItemPath(before), to: ItemPath(after))
        default:
            return nil
        }
    }
}

extension IndexPath {
    init(_ path: ItemPath) { self.init(item: path.item, section: path.section) }
}

extension ItemPath {
    init(_ path: IndexPath) { self.init(section: path.section, item: path.item) }
}

extension Rect {
    init(_ rect: CGRect) {
        self.init(x: Double(rect.origin.x), y: Double(rect.origin.y), width: Double(rect.size.width), height: Double(rect.size.height))
    }
}

extension Point {
    init(_ point: CGPoint) { self.init(x: Double(point.x), y: Double(point.y)) }
}
#endif
