import CatalogDiff
import CatalogModel

/// An interactive move: a person picks up an item, drags it over the layout and drops it (one
/// move) or lets go elsewhere (nothing) — what `UICollectionView`'s interactive movement does,
/// without UIKit.
///
/// Each drag point is hit-tested against the layout. Over a cell, the proposal is that cell's
/// index path; over a section's empty space (the rest of a shelf), the end of that section;
/// elsewhere the proposal stays. As `targetIndexPathForMove(fromItemAt:toProposedIndexPath:)`
/// would, a full shelf is never proposed: the proposal stays where it was. Moving within the
/// item's own shelf never needs room.
public struct MoveSession: Sendable {
    /// The item being moved, and where it was picked up.
    public let item: String
    public let source: ItemPath
    /// Where the item would land if dropped now.
    public private(set) var proposal: ItemPath

    /// The catalogue as the drag began (the store's rule for a move is asked of it).
    private let catalog: Catalog

    /// Begins a move at `point`; `nil` when no cell is there.
    public init?(catalog: Catalog, layout: Layout, beginAt point: Point) {
        guard let path = layout.indexPath(at: point),
              path.section < catalog.sections.count, path.item < catalog.sections[path.section].items.count else { return nil }
        item = catalog.sections[path.section].items[path.item].id
        source = path
        proposal = path
        self.catalog = catalog
    }

    /// Follows the drag to `point` and returns the proposal, adjusted so a full shelf is never proposed.
    @discardableResult
    public mutating func update(to point: Point, in layout: Layout) -> ItemPath {
        let proposed: ItemPath
        if let cell = layout.indexPath(at: point) {
            proposed = cell
        } else if let section = layout.section(at: point), section < catalog.sections.count {
            // Over a section but no cell: the end of the section (after the item leaves, in its own).
            let count = catalog.sections[section].items.count
            proposed = ItemPath(section: section, item: section == source.section ? count - 1 : count)
        } else {
            return proposal
        }
        proposal = catalog.moveTarget(from: source, current: proposal, proposed: proposed)   // never a full shelf
        return proposal
    }

    /// Ends the move: the one operation that performs it, or `nil` when the item is dropped where it was.
    public func end() -> BatchOperation? {
        guard proposal != source else { return nil }
        return .moveItem(id: item, toSection: catalog.sections[proposal.section].id, index: proposal.item)
    }
}

extension Layout {
    /// The section whose extent along the scroll axis holds `point` (from its header to its
    /// footer, across the whole width); `nil` outside every section or in styles without
    /// stacked sections (circular, carousel).
    public func section(at point: Point) -> Int? {
        guard style.stacksSections else { return nil }
        let across = isHorizontal ? point.y : point.x
        let crossLength = isHorizontal ? viewportSize.height : viewportSize.width
        guard across >= 0, across < crossLength else { return nil }
        let main = isHorizontal ? point.x : point.y
        let index = firstIndex(count: sectionExtents.count) { sectionExtents[$0].hi > main }
        guard index < sectionExtents.count, sectionExtents[index].lo <= main else { return nil }
        return index
    }
}
