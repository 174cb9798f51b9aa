/// What moving an item does (docs/Batches-and-moves.md), decided from what both writers of a move know: the item's
/// kind, the target section's kind, count and capacity, the index asked for and the policy. The
/// editor applies the decision to sections in memory; the store's quick path writes the
/// commonest ones straight in SQL. Both ask here, so the rules of a move are written once.
package enum MoveDecision: Hashable, Sendable {
    /// Within its own section, to `index` of the section without it (an index past the end is
    /// the end).
    case within(index: Int)
    /// Into another section with room, at `index`.
    case insert(index: Int)
    /// Into a full section at `index`; the sections' last items cascade to the following ones.
    case displace(index: Int)
    /// Trades places with the item at `index` of the target, which goes to the moved item's
    /// old place (if its kind fits there: the editor checks, as only it knows that item).
    case swap(index: Int)

    /// Decides the move of `item` (of `kind`) to `section`, a section of `sectionKind` holding
    /// `count` items (the item among them when `sameSection`) of at most `capacity`, at
    /// `requested` (nil: the end).
    ///
    /// - Throws: ``BatchError`` for a kind the section does not hold, an index outside
    ///   `0...count`, a full section that `policy` does not let the item into.
    package static func decide(item: String, kind: ItemKind, to section: String, of sectionKind: SectionKind,
                               count: Int, capacity: Int?, sameSection: Bool,
                               at requested: Int?, policy: MovePolicy) throws(BatchError) -> MoveDecision {
        guard kind == sectionKind.itemKind else {
            throw BatchError(reason: .kindMismatch(item: item, kind: kind, section: section, sectionKind: sectionKind))
        }
        let index = requested ?? count
        guard index >= 0, index <= count else {
            throw BatchError(reason: .indexOutOfRange(index: index, count: count, what: "section \"\(section)\""))
        }
        // Within one shelf a move never needs room.
        if sameSection { return .within(index: min(index, count - 1)) }
        if policy == .swap, index < count { return .swap(index: index) }
        guard let capacity, count >= capacity else { return .insert(index: index) }
        switch policy {
        case .reject: throw BatchError(reason: .sectionFull(section: section, capacity: capacity))
        case .swap: throw BatchError(reason: .nothingToSwap(section: section, index: index))
        case .displace: return .displace(index: index)
        }
    }
}
