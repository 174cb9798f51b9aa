import CatalogModel

/// Where an item stands in the stored order: its stored section's rank, then its rank in that
/// section. Any increasing numbering serves: evaluation uses positions, a live view gapped labels
/// that an insert elsewhere leaves unchanged.
struct StoredRank: Comparable, Hashable {
    var section: UInt64
    var item: UInt64

    static func < (a: StoredRank, b: StoredRank) -> Bool {
        (a.section, a.item) < (b.section, b.item)
    }
}

/// The order a view puts items in within its sections, and which section each goes to: one rule
/// for evaluation from scratch and for the live view.
struct ViewOrder {
    let keys: [ViewDefinition.SortKey]
    let grouping: ViewDefinition.Grouping

    init(_ definition: ViewDefinition) {
        keys = definition.sort
        grouping = definition.grouping
    }

    /// The value an item's field group is of (nil for an absent value, and for groupings that
    /// are not by field).
    @inline(__always)
    func groupValue(_ item: Item, section: String) -> ViewValue? {
        guard case .field(let field, _) = grouping else { return nil }
        return item.value(of: field, section: section)
    }

    /// Whether group value `a` comes before `b`: by value in the grouping's direction, the
    /// absent value last.
    func groupPrecedes(_ a: ViewValue?, _ b: ViewValue?) -> Bool {
        guard case .field(_, let descending) = grouping else { return false }
        return Self.precedes(a, b, descending: descending) ?? false
    }

    /// Whether `a` comes before `b` in one section of the view: by the sort keys, then by the
    /// stored order.
    @inline(__always)
    func precedes(_ a: Item, _ aSection: String, _ aRank: StoredRank,
                  _ b: Item, _ bSection: String, _ bRank: StoredRank) -> Bool {
        for key in keys {
            let x = a.value(of: key.field, section: aSection), y = b.value(of: key.field, section: bSection)
            if let order = Self.precedes(x, y, descending: key.descending) { return order }
        }
        return aRank < bRank
    }

    /// The order of two values of one key: nil when they tie. Absent values come after present
    /// ones in either direction.
    @inline(__always)
    static func precedes(_ x: ViewValue?, _ y: ViewValue?, descending: Bool) -> Bool? {
        switch (x, y) {
        case (nil, nil): return nil
        case (nil, _): return false
        case (_, nil): return true
        case (let x?, let y?):
            if x == y { return nil }
            return descending ? y < x : x < y
        }
    }
}

/// The sections a view by field makes: their ids and titles.
public enum ViewGroups {
    /// The id of the section a field group makes for `value`: the value's text, except that the
    /// text `null`, and any text beginning with a backslash, gets a backslash in front; the
    /// absent value's section is `null`. So ids never collide, and read as the values they are.
    public static func sectionID(for value: ViewValue?) -> String {
        guard let value else { return "null" }
        let text = value.text
        return text == "null" || text.hasPrefix("\\") ? "\\" + text : text
    }

    /// The title of the section for `value`: the value's text, `(none)` for the absent value.
    public static func title(for value: ViewValue?) -> String {
        value?.text ?? "(none)"
    }

    /// The id of the one section of a view grouped by `none`.
    public static let singleSectionID = "items"
}
