import CatalogDiff
import CatalogModel

/// A view of a catalogue kept up to date write by write (docs/Views.md, "Live views").
///
/// ``apply(_:)`` takes the catalogue's ``CatalogUpdate`` and answers the view's: the view after
/// the write, and the changeset that turns the view before it into the view after it, stage by
/// stage, with the catalogue of each stage. An item whose sort key or group changed moves; an
/// item whose content changed in place is reloaded; an item entering or leaving the filter or the
/// window is inserted or deleted.
///
/// The view's order is kept, not recomputed: a write re-places only the items its changeset
/// names (and the items of stored sections it inserts, deletes or moves), each by a binary search
/// in its section of the view; sections of the view that the write does not touch are shared with
/// the view before it, and the changeset is computed over the touched sections alone.
public struct LiveView: Sendable {
    public let definition: ViewDefinition
    /// The view as it stands.
    public private(set) var result: ViewResult
    /// The catalogue the view is of, as it stands.
    public private(set) var source: Catalog

    private let filter: ViewPredicate?
    private let order: ViewOrder
    private var index: ViewIndex

    /// The view of `catalog`, evaluated once.
    ///
    /// - Throws: ``ViewError`` as ``ViewDefinition/check(against:)`` and
    ///   ``ViewDefinition/evaluate(on:)`` do.
    public init(_ definition: ViewDefinition, of catalog: Catalog) throws(ViewError) {
        try definition.check(against: catalog)
        self.definition = definition
        self.filter = definition.filter?.compiled
        self.order = ViewOrder(definition)
        self.result = try definition.evaluate(on: catalog)
        self.source = catalog
        self.index = ViewIndex()
        index.load(catalog, filter: filter, order: order)
    }

    /// The view's update for the catalogue's `update`: a reset when the catalogue's update is one
    /// (or does not follow from ``source``), else the view's changeset from the view before.
    ///
    /// - Throws: ``ViewError`` when the write leaves a section of the view holding items of
    ///   several kinds; the view is then as it was.
    public mutating func apply(_ update: CatalogUpdate) throws(ViewError) -> CatalogUpdate {
        guard let changeset = update.changeset, (changeset.fromRevision ?? source.revision) == source.revision else {
            return try reset(to: update.catalog)
        }
        let before = result.catalog
        let stages = update.stages.count == changeset.stages.count
            ? update.stages : changeset.stagedCatalogs(from: source, to: update.catalog)
        let touched = Self.touched(by: changeset, from: source, stages: stages)
        let groups = try index.apply(touched, from: source, to: update.catalog, filter: filter, order: order)
        let view = index.view(of: update.catalog, definition: definition, previous: before, touched: groups)
        source = update.catalog
        result = view
        return Self.update(from: before, to: view.catalog, touched: groups, windowed: definition.limit != nil || definition.offset != 0)
    }

    private mutating func reset(to catalog: Catalog) throws(ViewError) -> CatalogUpdate {
        let result = try definition.evaluate(on: catalog)
        var index = ViewIndex()
        index.load(catalog, filter: filter, order: order)
        self.result = result
        self.index = index
        source = catalog
        return .reset(result.catalog)
    }

    /// What a catalogue's changeset touches: the ids of items it names (or that go with a
    /// section it inserts, deletes or moves) and whether it changes the stored sections.
    struct Touched {
        var items: Set<String> = []
        /// The ids of the stored sections the changeset's item operations name, in any stage.
        var sections: Set<String> = []
        var sectionsChanged = false
        /// Stored sections reloaded (title or capacity).
        var reloadedSections: Set<String> = []
    }

    static func touched(by changeset: Changeset, from a: Catalog, stages: [Catalog]) -> Touched {
        var touched = Touched()
        for (k, stage) in changeset.stages.enumerated() {
            let before = k == 0 ? a : stages[k - 1], after = stages[k]
            func old(_ path: ItemPath) {
                let section = before.sections[path.section]
                touched.items.insert(section.items[path.item].id)
                touched.sections.insert(section.id)
            }
            func new(_ path: ItemPath) {
                let section = after.sections[path.section]
                touched.items.insert(section.items[path.item].id)
                touched.sections.insert(section.id)
            }
            stage.items.deleted.forEach(old)
            stage.items.reloaded.forEach(old)
            stage.items.inserted.forEach(new)
            for move in stage.items.moved { old(move.from); new(move.to) }
            let sections = stage.sections
            if !sections.deleted.isEmpty || !sections.inserted.isEmpty || !sections.moved.isEmpty {
                touched.sectionsChanged = true
            }
            for s in sections.deleted { touched.items.formUnion(before.sections[s].items.map(\.id)) }
            for s in sections.inserted {
                touched.items.formUnion(after.sections[s].items.map(\.id))
                touched.sections.insert(after.sections[s].id)
            }
            for move in sections.moved {
                touched.items.formUnion(after.sections[move.to].items.map(\.id))
                touched.sections.insert(after.sections[move.to].id)
            }
            // A reloaded section reloads its items too: the catalogue's changeset names none of
            // them, whatever their content did.
            for s in sections.reloaded {
                let section = before.sections[s]
                touched.reloadedSections.insert(section.id)
                touched.sections.insert(section.id)
                touched.items.formUnion(section.items.map(\.id))
            }
        }
        return touched
    }

    /// The view's update from `a` to `b`, diffing only the sections of the view in `touched`
    /// (the others hold the same items in both, and enter the diff empty).
    static func update(from a: Catalog, to b: Catalog, touched: Set<GroupKey>, windowed: Bool) -> CatalogUpdate {
        func reduced(_ catalog: Catalog) -> Catalog {
            guard !windowed else { return catalog }
            var reduced = catalog
            for s in reduced.sections.indices where !touched.contains(GroupKey(reduced.sections[s].id)) {
                reduced.sections[s].items = []
            }
            return reduced
        }
        let (ra, rb) = (reduced(a), reduced(b))
        // The views' section and item ids are unique (stored ids, distinct group values).
        let changeset = (try? Changeset(from: ra, to: rb)) ?? Changeset()
        var stages = changeset.stagedCatalogs(from: ra, to: rb)
        if !windowed {
            var full: [String: Section] = [:]
            for section in b.sections where !touched.contains(GroupKey(section.id)) { full[section.id] = section }
            for k in stages.indices {
                for s in stages[k].sections.indices {
                    if let section = full[stages[k].sections[s].id] { stages[k].sections[s].items = section.items }
                }
            }
            if !stages.isEmpty { stages[stages.count - 1] = b }
        }
        var update = CatalogUpdate(revision: b.revision, catalog: b,
                                   changeset: Changeset(stages: changeset.stages, fromRevision: a.revision, toRevision: b.revision),
                                   stages: stages)
        update.previous = a
        return update
    }
}

/// A section of a view: a stored section's id, a field group's id, or the one section.
struct GroupKey: Hashable, Sendable {
    var id: String
    init(_ id: String) { self.id = id }
}
