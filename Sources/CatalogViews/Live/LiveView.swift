import CatalogDiff
import CatalogModel

/// A view of a catalogue kept up to date write by write (docs/Views.md, "Live views").
///
/// ``apply(_:)`` takes the catalogue's `CatalogUpdate` and answers the view's: the view after
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
        var index = ViewIndex()
        try index.load(catalog, definition: definition)
        self.index = index
        self.result = index.view(of: catalog, definition: definition)
        self.source = catalog
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
        let change = try index.apply(touched, to: update.catalog, filter: filter, order: order)
        let view = index.view(of: update.catalog, definition: definition)
        source = update.catalog
        result = view
        let windowed = definition.limit != nil || definition.offset != 0
        // The direct plan keeps every section of the view as it was: same ids, kinds, titles,
        // capacities (a section of none kind may change kind as it empties and fills).
        let sameSections = before.sections.count == view.catalog.sections.count
            && zip(before.sections, view.catalog.sections).allSatisfy {
                $0.id == $1.id && $0.kind == $1.kind && $0.title == $1.title && $0.capacity == $1.capacity
            }
        guard !windowed, !change.sectionsChanged, sameSections else {
            return Self.update(from: before, to: view.catalog, touched: change.groups, windowed: windowed)
        }
        let planned = Self.plan(from: before, to: view.catalog, change)
        var answer = CatalogUpdate(revision: view.catalog.revision, catalog: view.catalog, changeset: planned,
                                   stages: Array(repeating: view.catalog, count: planned.stages.count))
        answer.previous = before
        return answer
    }

    /// Traps unless the live view's state holds together (``ViewIndex/checkInvariants(_:order:)``).
    package func checkInvariants() {
        index.checkInvariants(source, order: order)
    }

    private mutating func reset(to catalog: Catalog) throws(ViewError) -> CatalogUpdate {
        var index = ViewIndex()
        try index.load(catalog, definition: definition)
        self.index = index
        result = index.view(of: catalog, definition: definition)
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
        /// Where each touched item is in the catalogue after the write, when the changeset says
        /// it: no stored section changed and only its first stage reshapes (later stages reload,
        /// in place). Nil: look for them.
        var positions: [String: (section: Int, item: Int)]?
    }

    static func touched(by changeset: Changeset, from a: Catalog, stages: [Catalog]) -> Touched {
        var touched = Touched()
        var positions: [String: (section: Int, item: Int)]? =
            changeset.stages.allSatisfy { $0.sections.isEmpty } && changeset.stages.dropFirst().allSatisfy(\.onlyReloads) ? [:] : nil
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
                positions?[section.items[path.item].id] = (path.section, path.item)
            }
            stage.items.deleted.forEach(old)
            // A reload keeps its path through its stage: the item is there after it too.
            stage.items.reloaded.forEach(new)
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
        touched.positions = positions
        return touched
    }

    /// The view's changeset from `a` to `b` when no section of the view appeared, went or
    /// changed, made from the places of the touched items alone (``ViewIndex/Change``): one
    /// stage of deletes, inserts and moves, then one of reloads at the final paths. Items that
    /// change sections move; within a section the fewest items move (``fewestMoves(_:oldTouched:newTouched:size:)``).
    ///
    /// - Complexity: O(*k* log *k*) for *k* touched items, plus the untouched items that move.
    static func plan(from a: Catalog, to b: Catalog, _ change: ViewIndex.Change) -> Changeset {
        var sectionIndex: [String: Int] = [:]
        for (s, section) in b.sections.enumerated() { sectionIndex[section.id] = s }
        var before: [String: ViewIndex.Place] = [:], after: [String: ViewIndex.Place] = [:]
        var oldTouched: [GroupKey: [Int]] = [:], newTouched: [GroupKey: [Int]] = [:]
        for place in change.before { before[place.id] = place; oldTouched[place.group, default: []].append(place.index) }
        for place in change.after { after[place.id] = place; newTouched[place.group, default: []].append(place.index) }
        for key in oldTouched.keys { oldTouched[key]!.sort() }
        for key in newTouched.keys { newTouched[key]!.sort() }
        func path(_ place: ViewIndex.Place) -> ItemPath { ItemPath(section: sectionIndex[place.group.id]!, item: place.index) }
        var moves = Stage(), reloads = Stage()
        // The touched items in the same section before and after: they stay where they can.
        var staying: [GroupKey: [(old: Int, new: Int)]] = [:]
        var moved: [(from: ItemPath, to: ItemPath)] = []
        for place in change.before where after[place.id] == nil { moves.items.deleted.append(path(place)) }
        for place in change.after {
            guard let old = before[place.id] else {
                moves.items.inserted.append(path(place))
                continue
            }
            if let item = change.oldItems[place.id], !item.hasSameContent(as: b.sections[sectionIndex[place.group.id]!].items[place.index]) {
                reloads.items.reloaded.append(path(place))
            }
            if old.group == place.group {
                staying[place.group, default: []].append((old.index, place.index))
            } else {
                moved.append((path(old), path(place)))
            }
        }
        for (group, pairs) in staying {
            let s = sectionIndex[group.id]!
            for (from, to) in Self.fewestMoves(pairs, oldTouched: oldTouched[group]!, newTouched: newTouched[group]!,
                                               size: b.sections[s].items.count) {
                moved.append((ItemPath(section: s, item: from), ItemPath(section: s, item: to)))
            }
        }
        moves.items.moved = moved.sorted { $0.from < $1.from }.map { Move(from: $0.from, to: $0.to) }
        moves.items.deleted.sort()
        moves.items.inserted.sort()
        reloads.items.reloaded.sort()
        return Changeset(stages: [moves, reloads].filter { !$0.isEmpty }, fromRevision: a.revision, toRevision: b.revision)
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

extension LiveView {
    /// The moves within one section of the view that keep the most items in place: `pairs` are
    /// the (old, new) indexes of the touched items that stay in it, `oldTouched` and
    /// `newTouched` the sorted indexes of every touched item there before and after, `size` its
    /// item count after. The untouched items keep their order; cut where a touched item sits in
    /// either order, they form at most 2*k* + 1 runs, each weighed by its length, and a longest
    /// increasing subsequence by weight over the runs and the staying items keeps the heaviest
    /// consistent set — what a diff of the whole section would keep — while everything off it
    /// moves (an untouched run off it item by item).
    ///
    /// - Complexity: O(*k* log *k*) for *k* touched items, plus the items of runs that move.
    static func fewestMoves(_ pairs: [(old: Int, new: Int)], oldTouched: [Int], newTouched: [Int], size: Int) -> [(Int, Int)] {
        // Where, among the untouched items, each touched one sits: before the untouched item of
        // that rank (non-decreasing, as the indexes are sorted).
        let oldCuts = oldTouched.enumerated().map { $1 - $0 }, newCuts = newTouched.enumerated().map { $1 - $0 }
        let untouched = size - newTouched.count
        /// How many of the sorted `values` are at most `value`.
        func atMost(_ value: Int, _ values: [Int]) -> Int {
            var low = 0, high = values.count
            while low < high {
                let middle = (low + high) / 2
                if values[middle] <= value { low = middle + 1 } else { high = middle }
            }
            return low
        }
        func oldIndex(_ rank: Int) -> Int { rank + atMost(rank, oldCuts) }
        func newIndex(_ rank: Int) -> Int { rank + atMost(rank, newCuts) }
        let cuts = Set(oldCuts + newCuts + [0, untouched]).filter { $0 >= 0 && $0 <= untouched }.sorted()
        struct Element { var old: Int; var new: Int; var weight: Int; var run: Range<Int>? }
        var elements: [Element] = []
        for (start, end) in zip(cuts, cuts.dropFirst()) where end > start {
            elements.append(Element(old: oldIndex(start), new: newIndex(start), weight: end - start, run: start..<end))
        }
        for pair in pairs { elements.append(Element(old: pair.old, new: pair.new, weight: 1, run: nil)) }
        elements.sort { $0.new < $1.new }
        // The heaviest subsequence increasing in old index, by a Fenwick tree of prefix maxima
        // over the old indexes' ranks.
        let ranks = Dictionary(uniqueKeysWithValues: elements.map(\.old).sorted().enumerated().map { ($1, $0 + 1) })
        var tree = [(weight: Int, element: Int)](repeating: (0, -1), count: elements.count + 1)
        var best = [Int](repeating: 0, count: elements.count), previous = [Int](repeating: -1, count: elements.count)
        for (e, element) in elements.enumerated() {
            var r = ranks[element.old]! - 1, found = (weight: 0, element: -1)
            while r > 0 {
                if tree[r].weight > found.weight { found = tree[r] }
                r -= r & -r
            }
            best[e] = found.weight + element.weight
            previous[e] = found.element
            r = ranks[element.old]!
            while r <= elements.count {
                if best[e] > tree[r].weight { tree[r] = (best[e], e) }
                r += r & -r
            }
        }
        var kept = [Bool](repeating: false, count: elements.count)
        var e = best.indices.max { best[$0] < best[$1] } ?? -1
        while e >= 0 {
            kept[e] = true
            e = previous[e]
        }
        var moves: [(Int, Int)] = []
        for (k, element) in elements.enumerated() where !kept[k] {
            if let run = element.run {
                for rank in run { moves.append((oldIndex(rank), newIndex(rank))) }
            } else {
                moves.append((element.old, element.new))
            }
        }
        return moves
    }
}

/// A section of a view: a stored section's id, a field group's id, or the one section.
struct GroupKey: Hashable, Sendable {
    var id: String
    init(_ id: String) { self.id = id }
}
