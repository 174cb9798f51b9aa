// The part of UIKit's interface that Sources/CatalogUIKit uses, so that
// Scripts/typecheck-uikit.sh can typecheck the adapter where UIKit does not exist: a renamed
// CatalogLayout or CatalogDiff API, or a concurrency mistake, then fails CI instead of the first
// build in Xcode. Bodies are empty: nothing here runs, and it is not UIKit's behaviour.
//
// Beside every member, `// UIKit:` gives the Swift declaration from Apple's documentation
// (developer.apple.com/documentation/uikit/…) that the stand-in copies. Where the two differ it is
// only in what a stand-in must spell out: `open`/`public`, a body, and `static let` for UIKit's
// `class let`. A member the adapter starts to use is added here with its declaration.
@_exported import Foundation

// UIKit: struct CGAffineTransform
public struct CGAffineTransform: Sendable {
    // UIKit: init(scaleX sx: CGFloat, y sy: CGFloat)
    public init(scaleX sx: CGFloat, y sy: CGFloat) {}
}

// UIKit: @MainActor class UIResponder
@MainActor open class UIResponder: NSObject {}

// UIKit: @MainActor class UIView
@MainActor open class UIView: UIResponder {
    // UIKit: var window: UIWindow? { get }
    open var window: UIWindow? { nil }
    // UIKit: var bounds: CGRect { get set }
    open var bounds: CGRect = .zero
}

// UIKit: @MainActor class UIWindow
@MainActor open class UIWindow: UIView {}

// UIKit: @MainActor class UIScrollView
@MainActor open class UIScrollView: UIView {
    // UIKit: var contentOffset: CGPoint { get set }
    open var contentOffset: CGPoint = .zero
}

// UIKit: @MainActor class UICollectionReusableView
@MainActor open class UICollectionReusableView: UIView {}

// UIKit: @MainActor class UICollectionViewCell
@MainActor open class UICollectionViewCell: UICollectionReusableView {}

// UIKit: @MainActor class UICollectionViewLayoutAttributes
@MainActor open class UICollectionViewLayoutAttributes: NSObject {
    // UIKit: var frame: CGRect { get set }
    open var frame: CGRect = .zero
    // UIKit: var transform: CGAffineTransform { get set }
    open var transform: CGAffineTransform = CGAffineTransform(scaleX: 1, y: 1)
    // UIKit: var alpha: CGFloat { get set }
    open var alpha: CGFloat = 1
    // UIKit: var zIndex: Int { get set }
    open var zIndex: Int = 0
    // UIKit: var isHidden: Bool { get set }
    open var isHidden: Bool = false
    // UIKit: convenience init(forCellWith indexPath: IndexPath)
    public convenience init(forCellWith indexPath: IndexPath) { self.init() }
    // UIKit: convenience init(forSupplementaryViewOfKind elementKind: String, with indexPath: IndexPath)
    public convenience init(forSupplementaryViewOfKind elementKind: String, with indexPath: IndexPath) { self.init() }
    // UIKit: convenience init(forDecorationViewOfKind decorationViewKind: String, with indexPath: IndexPath)
    public convenience init(forDecorationViewOfKind decorationViewKind: String, with indexPath: IndexPath) { self.init() }
}

// UIKit: @MainActor class UICollectionViewUpdateItem
@MainActor open class UICollectionViewUpdateItem: NSObject {
    // UIKit: enum Action (Int raw values, Sendable), cases insert, delete, reload, move, none
    public enum Action: Int, Sendable { case insert, delete, reload, move, none }
    // UIKit: var indexPathBeforeUpdate: IndexPath? { get }
    open var indexPathBeforeUpdate: IndexPath? { nil }
    // UIKit: var indexPathAfterUpdate: IndexPath? { get }
    open var indexPathAfterUpdate: IndexPath? { nil }
    // UIKit: var updateAction: UICollectionViewUpdateItem.Action { get }
    open var updateAction: Action { .none }
}

// UIKit: @MainActor class UICollectionViewLayoutInvalidationContext
@MainActor open class UICollectionViewLayoutInvalidationContext: NSObject {
    // UIKit: var invalidateEverything: Bool { get }
    open var invalidateEverything: Bool { false }
    // UIKit: var invalidateDataSourceCounts: Bool { get }
    open var invalidateDataSourceCounts: Bool { false }
}

// UIKit: @MainActor class UICollectionViewLayout
@MainActor open class UICollectionViewLayout: NSObject {
    // UIKit: init()
    public override init() {}
    // UIKit: init?(coder: NSCoder)
    public required init?(coder: NSCoder) {}
    // UIKit: var collectionView: UICollectionView? { get }
    open var collectionView: UICollectionView? { nil }
    // UIKit: func invalidateLayout()
    open func invalidateLayout() {}
    // UIKit: func invalidateLayout(with context: UICollectionViewLayoutInvalidationContext)
    open func invalidateLayout(with context: UICollectionViewLayoutInvalidationContext) {}
    // UIKit: func prepare()
    open func prepare() {}
    // UIKit: var collectionViewContentSize: CGSize { get }
    open var collectionViewContentSize: CGSize { .zero }
    // UIKit: func layoutAttributesForElements(in rect: CGRect) -> [UICollectionViewLayoutAttributes]?
    open func layoutAttributesForElements(in rect: CGRect) -> [UICollectionViewLayoutAttributes]? { nil }
    // UIKit: func layoutAttributesForItem(at indexPath: IndexPath) -> UICollectionViewLayoutAttributes?
    open func layoutAttributesForItem(at indexPath: IndexPath) -> UICollectionViewLayoutAttributes? { nil }
    // UIKit: func layoutAttributesForSupplementaryView(ofKind elementKind: String, at indexPath: IndexPath) -> UICollectionViewLayoutAttributes?
    open func layoutAttributesForSupplementaryView(ofKind elementKind: String, at indexPath: IndexPath) -> UICollectionViewLayoutAttributes? { nil }
    // UIKit: func layoutAttributesForDecorationView(ofKind elementKind: String, at indexPath: IndexPath) -> UICollectionViewLayoutAttributes?
    open func layoutAttributesForDecorationView(ofKind elementKind: String, at indexPath: IndexPath) -> UICollectionViewLayoutAttributes? { nil }
    // UIKit: func shouldInvalidateLayout(forBoundsChange newBounds: CGRect) -> Bool
    open func shouldInvalidateLayout(forBoundsChange newBounds: CGRect) -> Bool { false }
    // UIKit: func targetContentOffset(forProposedContentOffset proposedContentOffset: CGPoint, withScrollingVelocity velocity: CGPoint) -> CGPoint
    open func targetContentOffset(forProposedContentOffset proposedContentOffset: CGPoint, withScrollingVelocity velocity: CGPoint) -> CGPoint { .zero }
    // UIKit: func prepare(forCollectionViewUpdates updateItems: [UICollectionViewUpdateItem])
    open func prepare(forCollectionViewUpdates updateItems: [UICollectionViewUpdateItem]) {}
    // UIKit: func finalizeCollectionViewUpdates()
    open func finalizeCollectionViewUpdates() {}
    // UIKit: func initialLayoutAttributesForAppearingItem(at itemIndexPath: IndexPath) -> UICollectionViewLayoutAttributes?
    open func initialLayoutAttributesForAppearingItem(at itemIndexPath: IndexPath) -> UICollectionViewLayoutAttributes? { nil }
    // UIKit: func finalLayoutAttributesForDisappearingItem(at itemIndexPath: IndexPath) -> UICollectionViewLayoutAttributes?
    open func finalLayoutAttributesForDisappearingItem(at itemIndexPath: IndexPath) -> UICollectionViewLayoutAttributes? { nil }
    // UIKit: func targetIndexPath(forInteractivelyMovingItem previousIndexPath: IndexPath, withPosition position: CGPoint) -> IndexPath
    open func targetIndexPath(forInteractivelyMovingItem previousIndexPath: IndexPath, withPosition position: CGPoint) -> IndexPath { previousIndexPath }
    // UIKit: func invalidationContextForEndingInteractiveMovementOfItems(toFinalIndexPaths indexPaths: [IndexPath], previousIndexPaths: [IndexPath], movementCancelled: Bool) -> UICollectionViewLayoutInvalidationContext
    open func invalidationContextForEndingInteractiveMovementOfItems(toFinalIndexPaths indexPaths: [IndexPath], previousIndexPaths: [IndexPath], movementCancelled: Bool) -> UICollectionViewLayoutInvalidationContext { .init() }
}

// UIKit: @MainActor class UICollectionView
@MainActor open class UICollectionView: UIScrollView {
    // UIKit: class let elementKindSectionHeader: String
    public static let elementKindSectionHeader: String = "UICollectionElementKindSectionHeader"
    // UIKit: class let elementKindSectionFooter: String
    public static let elementKindSectionFooter: String = "UICollectionElementKindSectionFooter"
    // UIKit: func performBatchUpdates(_ updates: (() -> Void)?, completion: ((Bool) -> Void)? = nil)
    open func performBatchUpdates(_ updates: (() -> Void)?, completion: ((Bool) -> Void)? = nil) {}
    // UIKit: func reloadData()
    open func reloadData() {}
    // UIKit: func insertSections(_ sections: IndexSet)
    open func insertSections(_ sections: IndexSet) {}
    // UIKit: func deleteSections(_ sections: IndexSet)
    open func deleteSections(_ sections: IndexSet) {}
    // UIKit: func reloadSections(_ sections: IndexSet)
    open func reloadSections(_ sections: IndexSet) {}
    // UIKit: func moveSection(_ section: Int, toSection newSection: Int)
    open func moveSection(_ section: Int, toSection newSection: Int) {}
    // UIKit: func insertItems(at indexPaths: [IndexPath])
    open func insertItems(at indexPaths: [IndexPath]) {}
    // UIKit: func deleteItems(at indexPaths: [IndexPath])
    open func deleteItems(at indexPaths: [IndexPath]) {}
    // UIKit: func reloadItems(at indexPaths: [IndexPath])
    open func reloadItems(at indexPaths: [IndexPath]) {}
    // UIKit: func reconfigureItems(at indexPaths: [IndexPath])   (iOS 15, tvOS 15)
    @available(iOS 15, tvOS 15, *)
    open func reconfigureItems(at indexPaths: [IndexPath]) {}
    // UIKit: func moveItem(at indexPath: IndexPath, to newIndexPath: IndexPath)
    open func moveItem(at indexPath: IndexPath, to newIndexPath: IndexPath) {}
}

// UIKit: @preconcurrency struct NSDiffableDataSourceSnapshot<SectionIdentifierType, ItemIdentifierType>
//        where SectionIdentifierType : Hashable, SectionIdentifierType : Sendable,
//              ItemIdentifierType : Hashable, ItemIdentifierType : Sendable
public struct NSDiffableDataSourceSnapshot<SectionIdentifierType: Hashable & Sendable, ItemIdentifierType: Hashable & Sendable>: Sendable {
    // UIKit: init()
    public init() {}
    // UIKit: var sectionIdentifiers: [SectionIdentifierType] { get }
    public var sectionIdentifiers: [SectionIdentifierType] { [] }
    // UIKit: func itemIdentifiers(inSection identifier: SectionIdentifierType) -> [ItemIdentifierType]
    public func itemIdentifiers(inSection identifier: SectionIdentifierType) -> [ItemIdentifierType] { [] }
    // UIKit: mutating func appendSections(_ identifiers: [SectionIdentifierType])
    public mutating func appendSections(_ identifiers: [SectionIdentifierType]) {}
    // UIKit: mutating func appendItems(_ identifiers: [ItemIdentifierType], toSection sectionIdentifier: SectionIdentifierType? = nil)
    public mutating func appendItems(_ identifiers: [ItemIdentifierType], toSection sectionIdentifier: SectionIdentifierType? = nil) {}
    // UIKit: mutating func reconfigureItems(_ identifiers: [ItemIdentifierType])   (iOS 15, tvOS 15)
    @available(iOS 15, tvOS 15, *)
    public mutating func reconfigureItems(_ identifiers: [ItemIdentifierType]) {}
}

// UIKit: @preconcurrency struct NSDiffableDataSourceTransaction<SectionIdentifierType, ItemIdentifierType>
//        where SectionIdentifierType : Hashable, SectionIdentifierType : Sendable,
//              ItemIdentifierType : Hashable, ItemIdentifierType : Sendable
public struct NSDiffableDataSourceTransaction<SectionIdentifierType: Hashable & Sendable, ItemIdentifierType: Hashable & Sendable> {
    // UIKit: var finalSnapshot: NSDiffableDataSourceSnapshot<SectionIdentifierType, ItemIdentifierType> { get }
    public var finalSnapshot: NSDiffableDataSourceSnapshot<SectionIdentifierType, ItemIdentifierType> { .init() }
}

// UIKit: @MainActor @preconcurrency class UICollectionViewDiffableDataSource<SectionIdentifierType, ItemIdentifierType>
//        where SectionIdentifierType : Hashable, SectionIdentifierType : Sendable,
//              ItemIdentifierType : Hashable, ItemIdentifierType : Sendable
@MainActor @preconcurrency
open class UICollectionViewDiffableDataSource<SectionIdentifierType: Hashable & Sendable, ItemIdentifierType: Hashable & Sendable>: NSObject {
    // UIKit: typealias CellProvider = (UICollectionView, IndexPath, ItemIdentifierType) -> UICollectionViewCell?
    public typealias CellProvider = (UICollectionView, IndexPath, ItemIdentifierType) -> UICollectionViewCell?

    // UIKit: struct ReorderingHandlers   (iOS 14, tvOS 14)
    public struct ReorderingHandlers {
        // UIKit: var canReorderItem: ((ItemIdentifierType) -> Bool)? { get set }
        public var canReorderItem: ((ItemIdentifierType) -> Bool)?
        // UIKit: var didReorder: ((NSDiffableDataSourceTransaction<SectionIdentifierType, ItemIdentifierType>) -> Void)? { get set }
        public var didReorder: ((NSDiffableDataSourceTransaction<SectionIdentifierType, ItemIdentifierType>) -> Void)?
    }

    // UIKit: @MainActor @preconcurrency init(collectionView: UICollectionView, cellProvider: @escaping UICollectionViewDiffableDataSource<SectionIdentifierType, ItemIdentifierType>.CellProvider)
    public init(collectionView: UICollectionView, cellProvider: @escaping CellProvider) {}
    // UIKit: @MainActor @preconcurrency func apply(_ snapshot: NSDiffableDataSourceSnapshot<SectionIdentifierType, ItemIdentifierType>, animatingDifferences: Bool = true, completion: (() -> Void)? = nil)
    open func apply(_ snapshot: NSDiffableDataSourceSnapshot<SectionIdentifierType, ItemIdentifierType>, animatingDifferences: Bool = true,
                    completion: (() -> Void)? = nil) {}
    // UIKit: @MainActor @preconcurrency var reorderingHandlers: UICollectionViewDiffableDataSource<SectionIdentifierType, ItemIdentifierType>.ReorderingHandlers { get set }
    open var reorderingHandlers = ReorderingHandlers()
}

extension IndexPath {
    // UIKit (Foundation's UIKit additions): init(item: Int, section: Int)
    public init(item: Int, section: Int) { self.init(indexes: [section, item]) }
    // UIKit: var item: Int { get set }
    public var item: Int { self[1] }
    // UIKit: var section: Int { get set }
    public var section: Int { self[0] }
}
