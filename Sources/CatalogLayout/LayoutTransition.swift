import CatalogDiff
import CatalogModel

/// The attributes UIKit asks a layout for while it animates one `performBatchUpdates` stage:
/// where appearing cells start (`initialLayoutAttributesForAppearingItem`) and where
/// disappearing cells end (`finalLayoutAttributesForDisappearingItem`).
///
/// Inserted and reloaded cells — and the cells of inserted or reloaded sections — fade in at their
/// own frame (circular: they grow out of the circle's centre); deleted ones fade out the same way.
/// Cells that move, or shift because others come and go, travel between their old and new frames.
public struct LayoutTransition: Sendable {
    public let before: Layout
    public let after: Layout
    /// For every cell after the stage, the index path it had before; `nil` for a cell that appears.
    private var source: [[ItemPath?]]
    /// For every cell before the stage, the index path it has after; `nil` for a cell that disappears.
    private var destination: [[ItemPath?]]

    /// Throws ``LayoutTransitionError`` when the stage does not turn `before`'s section and item
    /// counts into `after`'s (check changesets with `BatchUpdateSimulator` first for the details).
    public init(from before: Layout, to after: Layout, stage: Stage) throws(LayoutTransitionError) {
        self.before = before
        self.after = after
        let n = before.numberOfSections, m = after.numberOfSections
        func fail(_ message: String) -> LayoutTransitionError { LayoutTransitionError(message: message) }
        func inRange(_ index: Int, _ count: Int) -> Bool { index >= 0 && index < count }

        // Sections: inserted and moved ones take their slots; the others keep their order.
        let sections = stage.sections
        guard sections.deleted.allSatisfy({ inRange($0, n) }), sections.reloaded.allSatisfy({ inRange($0, n) }),
              sections.inserted.allSatisfy({ inRange($0, m) }),
              sections.moved.allSatisfy({ inRange($0.from, n) && inRange($0.to, m) }),
              n - sections.deleted.count + sections.inserted.count == m else {
            throw fail("the stage's section changes do not turn \(n) sections into \(m)")
        }
        var sectionSource = [Int?](repeating: nil, count: m)
        var taken = [Bool](repeating: false, count: m)
        for s in sections.inserted { taken[s] = true }
        for move in sections.moved {
            sectionSource[move.to] = move.from
            taken[move.to] = true
        }
        let removed = Set(sections.deleted).union(sections.moved.map(\.from))
        var free = (0..<m).lazy.filter { !taken[$0] }.makeIterator()
        for s in 0..<n where !removed.contains(s) {
            guard let t = free.next() else { throw fail("the stage's section changes do not fit \(m) sections") }
            sectionSource[t] = s
        }
        let fading = Set(sections.reloaded)

        source = (0..<m).map { [ItemPath?](repeating: nil, count: after.numberOfItems(inSection: $0)) }
        destination = (0..<n).map { [ItemPath?](repeating: nil, count: before.numberOfItems(inSection: $0)) }

        // Items: moves first, then untouched items fill the free slots of their section in order.
        let items = stage.items
        func valid(_ path: ItemPath, in layout: Layout) -> Bool {
            inRange(path.section, layout.numberOfSections) && inRange(path.item, layout.numberOfItems(inSection: path.section))
        }
        guard items.deleted.allSatisfy({ valid($0, in: before) }), items.reloaded.allSatisfy({ valid($0, in: before) }),
              items.inserted.allSatisfy({ valid($0, in: after) }),
              items.moved.allSatisfy({ valid($0.from, in: before) && valid($0.to, in: after) }) else {
            throw fail("an item index path of the stage is out of range")
        }
        let leaving = Set(items.deleted).union(items.reloaded).union(items.moved.map(\.from))
        var arriving = Set(items.inserted).union(items.moved.map(\.to))
        for path in items.reloaded { arriving.insert(path) }   // a reload is a delete and an insert in place
        for move in items.moved {
            source[move.to.section][move.to.item] = move.from
            destination[move.from.section][move.from.item] = move.to
        }
        for t in 0..<m {
            guard let s = sectionSource[t], !fading.contains(s) else { continue }
            var slot = 0
            for i in 0..<before.numberOfItems(inSection: s) where !leaving.contains(ItemPath(section: s, item: i)) {
                while slot < source[t].count, arriving.contains(ItemPath(section: t, item: slot)) { slot += 1 }
                guard slot < source[t].count else {
                    throw fail("section \(t) has \(source[t].count) items after the stage, too few for the items that stay")
                }
                source[t][slot] = ItemPath(section: s, item: i)
                destination[s][i] = ItemPath(section: t, item: slot)
                slot += 1
            }
            while slot < source[t].count, arriving.contains(ItemPath(section: t, item: slot)) { slot += 1 }
            guard slot == source[t].count else {
                throw fail("section \(t) has \(source[t].count) items after the stage, more than the stage accounts for")
            }
        }
    }

    /// Where a cell at `path` (after the stage) starts its animation; `nil` for a path out of range.
    public func initialAttributes(forAppearingItemAt path: ItemPath) -> LayoutAttributes? {
        guard let final = after.attributes(forItemAt: path) else { return nil }
        if let old = source[path.section][path.item], var start = before.attributes(forItemAt: old) {
            start.indexPath = path
            return start
        }
        return faded(final, in: after)
    }

    /// Where a cell at `path` (before the stage) ends its animation; `nil` for a path out of range.
    public func finalAttributes(forDisappearingItemAt path: ItemPath) -> LayoutAttributes? {
        guard let initial = before.attributes(forItemAt: path) else { return nil }
        if let new = destination[path.section][path.item], var end = after.attributes(forItemAt: new) {
            end.indexPath = path
            return end
        }
        return faded(initial, in: before)
    }

    /// Cells that fade in (after-stage index paths): inserted, reloaded, or in a new or reloaded section.
    public var appearingItems: [ItemPath] { Self.unmatched(source) }

    /// Cells that fade out (before-stage index paths): deleted, reloaded, or in a deleted or reloaded section.
    public var disappearingItems: [ItemPath] { Self.unmatched(destination) }

    /// The index paths whose counterpart on the other side of the stage is `nil`.
    private static func unmatched(_ counterparts: [[ItemPath?]]) -> [ItemPath] {
        counterparts.enumerated().flatMap { s, paths in
            paths.indices.filter { paths[$0] == nil }.map { ItemPath(section: s, item: $0) }
        }
    }

    /// Transparent at its own frame — or centred on the layout's ``Layout/fadePoint``.
    private func faded(_ attributes: LayoutAttributes, in layout: Layout) -> LayoutAttributes {
        var result = attributes
        result.alpha = 0
        if let point = layout.fadePoint {
            result.frame = Rect(x: point.x - result.frame.width / 2, y: point.y - result.frame.height / 2,
                                width: result.frame.width, height: result.frame.height)
        }
        return result
    }
}

extension Layout {
    /// The point that appearing cells grow out of and disappearing ones shrink into, as
    /// ``LayoutTransition`` animates them: a circular layout's centre; `nil` for the other
    /// styles, whose cells fade in and out at their own frame.
    public var fadePoint: Point? {
        style == .circular ? circle.center : nil
    }
}

/// A stage that does not match the two layouts it is said to connect.
public struct LayoutTransitionError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var description: String { "cannot animate the stage: \(message)" }
}
