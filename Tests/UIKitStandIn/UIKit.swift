// The part of UIKit's interface that Sources/CatalogUIKit uses, with UIKit's signatures, so that
// Scripts/typecheck-uikit.sh can typecheck that file where UIKit does not exist: a renamed
// CatalogLayout or CatalogDiff API, or a concurrency mistake, then fails CI instead of the first
// build in Xcode. Bodies are empty: nothing here runs, and it is not UIKit's behaviour.
@_exported import Foundation

public struct CGAffineTransform: Sendable {
    public init(scaleX sx: CGFloat, y sy: CGFloat) {}
}

@MainActor open class UIResponder: NSObject {}

@MainActor open class UIView: UIResponder {
    open var window: UIView? { nil }
    open var bounds: CGRect = .zero
}

@MainActor open class UIScrollView: UIView {
    open var contentOffset: CGPoint = .zero
}

@MainActor open class UICollectionViewLayoutAttributes: NSObject {
    open var frame: CGRect = .zero
    open var transform: CGAffineTransform = CGAffineTransform(scaleX: 1, y: 1)
    open var alpha: CGFloat = 1
    open var zIndex: Int = 0
    open var isHidden: Bool = false
    public convenience init(forCellWith indexPath: IndexPath) { self.init() }
    public convenience init(forSupplementaryViewOfKind elementKind: String, with indexPath: IndexPath) { self.init() }
    public convenience init(forDecorationViewOfKind decorationViewKind: String, with indexPath: IndexPath) { self.init() }
}

@MainActor open class UICollectionViewUpdateItem: NSObject {
    public enum Action: Int, Sendable { case insert, delete, reload, move, none }
    open var indexPathBeforeUpdate: IndexPath? { nil }
    open var indexPathAfterUpdate: IndexPath? { nil }
    open var updateAction: Action { .none }
}

@MainActor open class UICollectionViewLayoutInvalidationContext: NSObject {
    open var invalidateEverything: Bool { false }
    open var invalidateDataSourceCounts: Bool { false }
}

@MainActor open class UICollectionViewLayout: NSObject {
    public override init() {}
    public required init?(coder: NSCoder) {}
    open var collectionView: UICollectionView? { nil }
    open func invalidateLayout() {}
    open func invalidateLayout(with context: UICollectionViewLayoutInvalidationContext) {}
    open func prepare() {}
    open var collectionViewContentSize: CGSize { .zero }
    open func layoutAttributesForElements(in rect: CGRect) -> [UICollectionViewLayoutAttributes]? { nil }
    open func layoutAttributesForItem(at indexPath: IndexPath) -> UICollectionViewLayoutAttributes? { nil }
    open func layoutAttributesForSupplementaryView(ofKind elementKind: String, at indexPath: IndexPath) -> UICollectionViewLayoutAttributes? { nil }
    open func layoutAttributesForDecorationView(ofKind elementKind: String, at indexPath: IndexPath) -> UICollectionViewLayoutAttributes? { nil }
    open func shouldInvalidateLayout(forBoundsChange newBounds: CGRect) -> Bool { false }
    open func targetContentOffset(forProposedContentOffset proposedContentOffset: CGPoint, withScrollingVelocity velocity: CGPoint) -> CGPoint { .zero }
    open func prepare(forCollectionViewUpdates updateItems: [UICollectionViewUpdateItem]) {}
    open func finalizeCollectionViewUpdates() {}
    open func initialLayoutAttributesForAppearingItem(at itemIndexPath: IndexPath) -> UICollectionViewLayoutAttributes? { nil }
    open func finalLayoutAttributesForDisappearingItem(at itemIndexPath: IndexPath) -> UICollectionViewLayoutAttributes? { nil }
    open func targetIndexPath(forInteractivelyMovingItem previousIndexPath: IndexPath, withPosition position: CGPoint) -> IndexPath { previousIndexPath }
    open func invalidationContextForEndingInteractiveMovementOfItems(toFinalIndexPaths indexPaths: [IndexPath], previousIndexPaths: [IndexPath], movementCancelled: Bool) -> UICollectionViewLayoutInvalidationContext { .init() }
}

@MainActor open class UICollectionView: UIScrollView {
    public static let elementKindSectionHeader: String = "UICollectionElementKindSectionHeader"
    public static let elementKindSectionFooter: String = "UICollectionElementKindSectionFooter"
    open func performBatchUpdates(_ updates: (() -> Void)?, completion: ((Bool) -> Void)? = nil) {}
    open func reloadData() {}
    open func insertSections(_ sections: IndexSet) {}
    open func deleteSections(_ sections: IndexSet) {}
    open func reloadSections(_ sections: IndexSet) {}
    open func moveSection(_ section: Int, toSection newSection: Int) {}
    open func insertItems(at indexPaths: [IndexPath]) {}
    open func deleteItems(at indexPaths: [IndexPath]) {}
    open func reloadItems(at indexPaths: [IndexPath]) {}
    @available(iOS 15, tvOS 15, *)
    open func reconfigureItems(at indexPaths: [IndexPath]) {}
    open func moveItem(at indexPath: IndexPath, to newIndexPath: IndexPath) {}
}

extension IndexPath {
    public init(item: Int, section: Int) { self.init(indexes: [section, item]) }
    public var item: Int { self[1] }
    public var section: Int { self[0] }
}
