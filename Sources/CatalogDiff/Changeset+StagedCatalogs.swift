import CatalogModel

extension Changeset {
    /// The catalogue as it stands after each stage of this changeset from `a` to `b`: what a data
    /// source must answer inside that stage's `performBatchUpdates` (docs/Live-updates.md). The last element is
    /// `b` itself; items carry `b`'s content (and `a`'s while a later stage has yet to delete them).
    ///
    /// A section that no later stage touches is `b`'s section value itself, sharing its storage,
    /// so a changeset of one stage costs nothing and one of several costs what its later stages
    /// change. The changeset must be valid from `a` to `b` (one the diff or the store made, or one
    /// ``violations(from:to:)`` accepts); the stages' indices then fit, and every slot is known.
    public func stagedCatalogs(from a: Catalog, to b: Catalog) -> [Catalog] {
        guard stages.count > 1 else { return stages.isEmpty ? [] : [b] }
        // Reloads change content, not ids or counts, and every catalogue here carries b's
        // content: the catalogue before a stage of reloads alone is the one after it. So the
        // catalogue after the last stage that moves, deletes or inserts is b already (the
        // diff's last stages are often reloads of items that moved or shifted).
        let lastReshaping = stages.lastIndex { !$0.onlyReloads } ?? 0
        if lastReshaping < stages.count - 1 {
            let leading = Changeset(stages: Array(stages[...lastReshaping])).stagedCatalogs(from: a, to: b)
            return leading + Array(repeating: b, count: stages.count - leading.count)
        }
        typealias State = ReplayState<String, String>
        let (shapeA, shapeB) = (a.shape, b.shape)
        // Backwards from B: the state after each stage, with the ids of every item that is not
        // deleted by a later stage; forwards from A: the ids of those.
        var backward = [State?](repeating: nil, count: stages.count + 1)
        backward[stages.count] = State(shapeB)
        for k in stages.indices.reversed() {
            guard let after = backward[k + 1] else { break }
            backward[k] = Replay<String, String>.undo(stages[k], from: after)
        }
        // The forward replay (which checks every rule as it goes) is needed only where the
        // backward one does not know every id: where a later stage deletes something.
        let backwardKnowsAll = backward[1..<stages.count].allSatisfy { state in
            state.map { $0.sections.allSatisfy { $0.isKnown && $0.id != nil && !$0.items.contains(nil) } } ?? false
        }
        var replay = Replay(changeset: self, a: shapeA, b: shapeB)
        var forward = backwardKnowsAll ? nil : State(shapeA)
        var content = ContentIndex(a: a, b: b)
        var catalogs: [Catalog] = []
        catalogs.reserveCapacity(stages.count)
        for k in stages.indices.dropLast() {
            let known = backward[k + 1]
            if let before = forward {
                forward = replay.apply(stages[k], k, to: before, expected: known) ?? known ?? before
            }
            guard let state = forward ?? known else { continue }
            catalogs.append(content.catalog(state, forward == nil ? nil : known, revisionOf: b))
        }
        catalogs.append(b)
        return catalogs
    }
}

/// Sections and items of two catalogues by id, for building the catalogues between them: `b`'s
/// sections whole where a state holds them unchanged, `b`'s (else `a`'s) items otherwise. Items
/// are looked for first in `b`'s section of the same id (indexed one section at a time, as a
/// state needs them); the few that `b` holds elsewhere, or not at all, in one pass over both
/// catalogues.
private struct ContentIndex {
    let a: Catalog
    let b: Catalog
    private let sectionsOfB: [String: Int]
    private let sectionsOfA: [String: Int]
    private var sectionItems: [String: [String: Item]] = [:]

    init(a: Catalog, b: Catalog) {
        self.a = a
        self.b = b
        sectionsOfB = Dictionary(b.sections.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        sectionsOfA = Dictionary(a.sections.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The catalogue at one stage boundary, from the ids both replays know there.
    mutating func catalog(_ forward: ReplayState<String, String>, _ backward: ReplayState<String, String>?,
                          revisionOf b: Catalog) -> Catalog {
        var sections: [Section] = []
        sections.reserveCapacity(forward.sections.count)
        // Sections that differ from b's, with their ids; filled once the items that b's section
        // of the same id lacks have been found elsewhere.
        var differing: [(index: Int, ids: [String])] = []
        var missing = Set<String>()
        for (s, slot) in forward.sections.enumerated() {
            let other = backward.map { $0.sections[s] }
            let id = slot.id ?? other?.id ?? ""
            let ids = slot.items.indices.map { i in
                slot.items[i] ?? (other.map { $0.isKnown && i < $0.items.count ? $0.items[i] : nil } ?? nil) ?? ""
            }
            if let j = sectionsOfB[id], b.sections[j].items.count == ids.count,
               zip(b.sections[j].items, ids).allSatisfy({ $0.id == $1 }) {
                sections.append(b.sections[j])
                continue
            }
            var section = sectionsOfB[id].map { b.sections[$0] } ?? sectionsOfA[id].map { a.sections[$0] }
                ?? Section(id: id, kind: .bookshelf)
            let own = itemsOfB(inSection: id)
            for itemID in ids where own[itemID] == nil { missing.insert(itemID) }
            section.items = []
            differing.append((sections.count, ids))
            sections.append(section)
        }
        // Items that came from another section (or that b no longer has): one pass over b, then
        // a, for just those ids.
        var found: [String: Item] = [:]
        if !missing.isEmpty {
            for catalog in [b, a] {
                for section in catalog.sections {
                    for item in section.items where found[item.id] == nil && missing.contains(item.id) { found[item.id] = item }
                }
            }
        }
        for (index, ids) in differing {
            let own = itemsOfB(inSection: sections[index].id)
            sections[index].items = ids.map { own[$0] ?? found[$0] ?? Item(id: $0, content: .book(Book(title: "", cover: ""))) }
        }
        return Catalog(name: b.name, revision: b.revision, sections: sections)
    }

    /// The items of b's section `id` (if b has one) by id, indexed on first use.
    private mutating func itemsOfB(inSection id: String) -> [String: Item] {
        if let index = sectionItems[id] { return index }
        var index: [String: Item] = [:]
        for item in sectionsOfB[id].map({ b.sections[$0].items }) ?? [] { index[item.id] = item }
        sectionItems[id] = index
        return index
    }
}
