/// Computes the staged changeset (docs/Changesets.md) that turns one snapshot into another.
///
/// The stages, of which only the non-empty ones are emitted:
/// 1. **Sections that receive moved items** are inserted, holding their new items, next to the
///    section that precedes them in the target (only when some item moves into a new section).
/// 2. **Items**: deletes, inserts and moves — within a section only the items off a longest
///    increasing subsequence move (the fewest moves possible), across sections every survivor
///    moves rather than being deleted and inserted. Reloads of items that keep their index path.
/// 3. **Sections**: deletes, the remaining inserts, moves (again off a longest increasing
///    subsequence) and reloads of sections that keep their index. When stage 1 is empty and no
///    item operation touches a section changed here, stages 2 and 3 are one stage.
/// 4. **Reloads** of items that moved or shifted, and of sections that moved, at their final paths.
///
/// Items in a deleted section that do not survive go with their section, without a delete each.
public enum StagedDiff {
    /// The changeset from `a` to `b`, reloading the ids in `updatedItems` and `updatedSections`
    /// (those present in both snapshots; others are ignored). With a `workspace`, the diff's
    /// scratch memory is the workspace's, kept from one diff to the next (see ``DiffWorkspace``);
    /// without one, the diff borrows one of the shared workspaces
    /// (``DiffWorkspace/releaseShared()`` frees them). The changeset is the same either way.
    ///
    /// - Precondition: each snapshot has fewer than 2³¹ items (positions are kept in 32 bits).
    /// - Throws: ``DuplicateIDError`` when either snapshot repeats a section or item id.
    // Generic code called from another module runs unspecialised (every id copied through value
    // witnesses, ~7× slower); these are the id types catalogues and benchmarks use.
    @_specialize(where S == String, I == String)
    @_specialize(where S == Int, I == Int)
    @_specialize(where S == Int, I == String)
    public static func changeset<S, I>(
        from a: SnapshotShape<S, I>, to b: SnapshotShape<S, I>,
        updatedSections: Set<S> = [], updatedItems: Set<I> = [], workspace: DiffWorkspace? = nil
    ) throws(DuplicateIDError) -> Changeset {
        try changeset(from: a, to: b, updatedSections: updatedSections, updatedItems: .ids(updatedItems), workspace: workspace)
    }

    /// The changeset from `a` to `b`, with the items whose content changed found by
    /// `itemsDiffer`, which is asked about every item both snapshots hold, once, in runs: each
    /// call names a section of `a` and one of `b` and gives pairs of item indexes in them (old,
    /// new), and appends to `differing` the index in `pairs` of each pair whose content differs.
    /// The catalogue-level diff compares content inside the diff's own matching, with no second
    /// table of ids, and reaches each section's items once per run rather than once per item.
    @_specialize(where S == String, I == String)
    package static func changeset<S, I>(
        from a: SnapshotShape<S, I>, to b: SnapshotShape<S, I>, updatedSections: Set<S>,
        itemsDiffer: (_ oldSection: Int, _ newSection: Int, _ pairs: UnsafeBufferPointer<ItemPair>, _ differing: inout [Int]) -> Void,
        workspace: DiffWorkspace? = nil
    ) throws(DuplicateIDError) -> Changeset {
        try withoutActuallyEscaping(itemsDiffer) { itemsDiffer throws(DuplicateIDError) in
            try changeset(from: a, to: b, updatedSections: updatedSections, updatedItems: .compared(itemsDiffer), workspace: workspace)
        }
    }

    @_specialize(where S == String, I == String)
    @_specialize(where S == Int, I == Int)
    @_specialize(where S == Int, I == String)
    static func changeset<S, I>(
        from a: SnapshotShape<S, I>, to b: SnapshotShape<S, I>, updatedSections: Set<S>, updatedItems: ItemUpdates<I>,
        workspace: DiffWorkspace?
    ) throws(DuplicateIDError) -> Changeset {
        guard let workspace else {
            return try DiffWorkspace.shared.borrow { workspace throws(DuplicateIDError) in
                try changeset(from: a, to: b, updatedSections: updatedSections, updatedItems: updatedItems, workspace: workspace)
            }
        }
        var planner = try Planner(a: a, b: b, updatedSections: updatedSections, updatedItems: updatedItems, workspace: workspace)
        return planner.plan()
    }
}

/// The indexes of one item in a section of the old snapshot and in a section of the new one.
package struct ItemPair: Sendable {
    package var old: Int
    package var new: Int
}

/// How a diff learns which items present in both snapshots changed content: by their ids, or by
/// asking about runs of matched pairs (see ``StagedDiff/changeset(from:to:updatedSections:itemsDiffer:workspace:)``).
enum ItemUpdates<I: Hashable> {
    case ids(Set<I>)
    case compared((_ oldSection: Int, _ newSection: Int, _ pairs: UnsafeBufferPointer<ItemPair>, _ differing: inout [Int]) -> Void)
}

/// The working state of one diff. The item stage works on the *interim sections*: A's sections
/// plus the new sections stage 1 inserts; `Entry` names an interim section.
private struct Planner<S: Hashable & Sendable, I: Hashable & Sendable> {
    enum Entry: Hashable {
        /// A section of A, by its index in A.
        case old(Int)
        /// A new section inserted in the first stage, by its index in B.
        case new(Int)
    }

    let a: SnapshotShape<S, I>
    let b: SnapshotShape<S, I>
    let updatedSections: Set<S>
    let updatedItems: ItemUpdates<I>
    /// Where scratch arrays come from and go back to (the caller's, or a shared one).
    let workspace: DiffWorkspace

    var aSection: [S: Int] = [:]
    var bSection: [S: Int] = [:]
    /// The B index of each A section and the A index of each B section (nil: only one side has
    /// it), looked up once: the plan asks for them several times a section, and each dictionary
    /// lookup hashed the section's id again.
    var bIndexOfA: [Int?] = []
    var aIndexOfB: [Int?] = []

    // Items by flat position (see ``ItemIDs``).
    let aIDs: ItemIDs<I>
    let bIDs: ItemIDs<I>
    /// One table over both snapshots' item ids (see ``IDTable``).
    let table: IDTable
    /// The B position of each A position, and the reverse; −1 where the item is not there.
    let aToB: [Int32]
    let bToA: [Int32]
    /// How many ids A and B share.
    let matchedCount: Int

    /// The interim sections, in order, and the interim index of each A section / B section.
    var interim: [Entry] = []
    var interimOfA: [Int] = []
    var interimOfB: [Int?] = []

    init(a: SnapshotShape<S, I>, b: SnapshotShape<S, I>, updatedSections: Set<S>, updatedItems: ItemUpdates<I>,
         workspace: DiffWorkspace) throws(DuplicateIDError) {
        self.a = a
        self.b = b
        self.updatedSections = updatedSections
        self.updatedItems = updatedItems
        self.workspace = workspace
        var duplicateSections: [String] = []
        aSection.reserveCapacity(a.sections.count)
        bSection.reserveCapacity(b.sections.count)
        for (s, id) in a.sections.enumerated() where aSection.updateValue(s, forKey: id) != nil {
            duplicateSections.append(String(describing: id))
        }
        for (s, id) in b.sections.enumerated() where bSection.updateValue(s, forKey: id) != nil {
            duplicateSections.append(String(describing: id))
        }
        bIndexOfA = a.sections.map { [bSection] in bSection[$0] }
        aIndexOfB = b.sections.map { [aSection] in aSection[$0] }
        var aIDs = ItemIDs(a.items)
        var bIDs = ItemIDs(b.items)
        // The fast hash for the id type, unless it gives up on a non-ASCII string id: then the
        // standard one, for every id of the diff.
        var hash = IDHash.fastest(for: I.self)
        if hash.kind == .ascii, case .ids(let ids) = updatedItems, ids.contains(where: { hash($0) == nil }) { hash = .standard }
        let matching = Self.match(&aIDs, &bIDs, hash: hash, workspace: workspace)
            ?? Self.match(&aIDs, &bIDs, hash: .standard, workspace: workspace)!
        let duplicateItems = matching.duplicatesInA.map { String(describing: aIDs[$0]) }
            + matching.duplicatesInB.map { String(describing: bIDs[$0]) }
        if !duplicateSections.isEmpty || !duplicateItems.isEmpty {
            Self.giveBack(aIDs, bIDs, matching.aToB, matching.bToA, to: workspace)
            throw DuplicateIDError(sections: duplicateSections, items: duplicateItems)
        }
        (self.aIDs, self.aToB) = (aIDs, matching.aToB)
        (self.bIDs, self.bToA) = (bIDs, matching.bToA)
        table = matching.table
        matchedCount = matching.matched
    }

    /// Every item id of A and B matched through one table, or nil when the hash gave up.
    static func match(_ a: inout ItemIDs<I>, _ b: inout ItemIDs<I>, hash: IDHash, workspace: DiffWorkspace)
        -> (table: IDTable, aToB: [Int32], bToA: [Int32], matched: Int, duplicatesInA: [Int], duplicatesInB: [Int])? {
        // Positions are kept in 32 bits (the maps below, the record's stores, the subsequence).
        precondition(a.count <= Int(Int32.max) && b.count <= Int(Int32.max), "a diff handles snapshots of fewer than 2³¹ items")
        let table = IDTable.forIDs(&a, &b, hash: hash, workspace: workspace)
        guard let duplicatesInA = table.enter(a) else { return nil }
        var aToB = workspace.take(\.aToB, count: a.count, repeating: -1)
        var bToA = workspace.take(\.bToA, count: b.count, repeating: -1)
        // Nil when the hash gave up; else how many ids matched and where B repeats one.
        let record = aToB.withUnsafeMutableBufferPointer { aToB in
            bToA.withUnsafeMutableBufferPointer { bToA -> (count: Int, repeated: [Int])? in
                var record = MatchRecord(aToB: aToB, bToA: bToA)
                guard table.lookUp(b, in: a, expectingOrder: true, into: &record) else { return nil }
                return (record.count, record.repeatedPositions())
            }
        }
        guard let record else {
            workspace.keep(aToB, at: \.aToB)
            workspace.keep(bToA, at: \.bToA)
            return nil
        }
        return (table, aToB, bToA, record.count, duplicatesInA, record.repeated)
    }

    /// Hands the diff's scratch arrays back to the workspace, for the next diff.
    static func giveBack(_ aIDs: ItemIDs<I>, _ bIDs: ItemIDs<I>, _ aToB: [Int32], _ bToA: [Int32], to workspace: DiffWorkspace) {
        workspace.keep(aIDs.sectionOf, at: \.aSectionOf)
        workspace.keep(bIDs.sectionOf, at: \.bSectionOf)
        workspace.keep(aToB, at: \.aToB)
        workspace.keep(bToA, at: \.bToA)
    }

    /// The B index of A's section `s`, or nil when B deletes it.
    func survivingIndex(ofA s: Int) -> Int? { bIndexOfA[s] }

    /// The changeset: the three stages planned, then item and section reloads placed where they
    /// keep their paths, stages 2 and 3 merged when they can be, and the empty stages dropped.
    mutating func plan() -> Changeset {
        var first = planInterimSections()
        var (items, deferredItemReloads) = planItems()
        let (sections, movedSections, deferredSectionReloads) = planSections()

        // An item reload deferred past the item stage may ride in the section stage when its
        // section keeps its index there and is not reloaded or moved in it.
        var sectionStageItemReloads: [ItemPath] = []
        var lateItemReloads: [ItemPath] = []
        let touched = Set(sections.reloaded).union(movedSections)
        for path in deferredItemReloads {
            if !sections.isEmpty && interimOfB[path.section] == path.section && !touched.contains(path.section) {
                sectionStageItemReloads.append(path)
            } else {
                lateItemReloads.append(path)
            }
        }
        var third = Stage(sections: sections, items: ItemChanges(reloaded: sectionStageItemReloads))

        var second = Stage(items: items)
        items = ItemChanges()  // the stage's lists have one owner, so they sort in place (below)
        // Stages 2 and 3 as one, when nothing was inserted first and no item operation touches a
        // section that stage 3 changes: item paths after the stage are then in B's coordinates.
        if first.isEmpty && !second.isEmpty && !third.isEmpty, let merged = merge(second, third) {
            second = merged
            third = Stage()
        }
        var fourth = Stage(items: ItemChanges(reloaded: lateItemReloads))
        var fifth = Stage(sections: SectionChanges(reloaded: deferredSectionReloads))
        let reloadedSections = Set(deferredSectionReloads)
        if !lateItemReloads.contains(where: { reloadedSections.contains($0.section) }) {
            fourth.sections = fifth.sections
            fifth = Stage()
        }
        var stages = [first, second, third, fourth, fifth].filter { !$0.isEmpty }
        // Each list sorted where it has one owner: with another copy of a stage still held, every
        // list sorted was copied first (20k operations of a 100k-id diff).
        (first, second, third, fourth, fifth) = (Stage(), Stage(), Stage(), Stage(), Stage())
        for k in stages.indices { stages[k].sortOperations() }
        return Changeset(stages: stages)
    }

    /// Stage 1: the new sections that receive items from A, placed after the A section that
    /// precedes them in B, so that few of them need moving later. Sets the interim sections.
    mutating func planInterimSections() -> Stage {
        var receivers = Set<Int>()
        for s in b.sections.indices where aIndexOfB[s] == nil {
            if bIDs.positions(ofSection: s).contains(where: { bToA[$0] >= 0 }) { receivers.insert(s) }
        }
        var following: [Int: [Int]] = [:]  // A index (−1: the front) → receiving B sections
        var anchor = -1
        for s in b.sections.indices {
            if let old = aIndexOfB[s] { anchor = old } else if receivers.contains(s) { following[anchor, default: []].append(s) }
        }
        interim.reserveCapacity(a.sections.count + receivers.count)
        for s in following[-1] ?? [] { interim.append(.new(s)) }
        for s in a.sections.indices {
            interim.append(.old(s))
            for t in following[s] ?? [] { interim.append(.new(t)) }
        }
        interimOfA = [Int](repeating: 0, count: a.sections.count)
        interimOfB = [Int?](repeating: nil, count: b.sections.count)
        for (index, entry) in interim.enumerated() {
            switch entry {
            case .old(let s): interimOfA[s] = index
            case .new(let t): interimOfB[t] = index
            }
        }
        for s in a.sections.indices { if let t = bIndexOfA[s] { interimOfB[t] = interimOfA[s] } }

        var first = Stage()
        first.sections.inserted = interim.indices.filter { if case .new = interim[$0] { true } else { false } }
        return first

    }

    /// Stage 2: the items' deletes, inserts and moves, in interim coordinates on both sides, and
    /// the reloads of items that keep their path; the B paths of the other reloads, for a later
    /// stage. Gives the diff's scratch arrays back to the workspace.
    func planItems() -> (items: ItemChanges, deferredReloads: [ItemPath]) {
        var items = ItemChanges()
        // At most every id that only one side has (those of deleted or inserted sections are left
        // out): reserved once instead of growing the lists a dozen times.
        items.deleted.reserveCapacity(aIDs.count - matchedCount)
        items.inserted.reserveCapacity(bIDs.count - matchedCount)
        let updated = updatedPairs()
        // Which B positions moved, by B position: only needed to place item reloads.
        var moved = updated.isEmpty ? []
            : workspace.take(\.moved, count: bIDs.count, repeating: false)
        var deferredReloads: [ItemPath] = []  // B paths
        // Survivors of one section: their B index in the section, in A's order, written
        // through a pointer into scratch space one larger than the largest section, with the
        // indexes of the section's items that leave for another section from its back; and
        // their index in A's section, from the front of a second space as large, with the
        // indexes of the section's deleted items from its back. The first space also holds, for
        // a B section, the positions of its inserted items, so it is sized for the largest
        // section of either snapshot.
        let largest = max(a.items.reduce(0) { max($0, $1.count) }, b.items.reduce(0) { max($0, $1.count) })
        var stayTo = workspace.takeScratch(\.stayTo, count: largest + 1, filler: 0)
        var stayFrom = workspace.takeScratch(\.stayFrom, count: largest + 1, filler: 0)
        var subsequence = LongestIncreasingSubsequence()
        swap(&subsequence, &workspace.subsequence)
        defer {
            swap(&subsequence, &workspace.subsequence)
            workspace.keep(stayTo, at: \.stayTo)
            workspace.keep(stayFrom, at: \.stayFrom)
            workspace.keep(moved, at: \.moved)
            Self.giveBack(aIDs, bIDs, aToB, bToA, to: workspace)
        }
        aToB.withUnsafeBufferPointer { aToB in
            /// The move of A's item `i` of interim section `index` (at flat position `start + i`) to
            /// where B has it. The caller lists it: a nested function that changes a variable it
            /// captures checks that variable's exclusive access at run time, on every call.
            func move(_ i: Int, ofSection index: Int, at start: Int) -> Move<ItemPath> {
                let q = Int(aToB[start + i])
                let target = bIDs.path(q)
                return Move(from: ItemPath(section: index, item: i),
                            to: ItemPath(section: interimOfB[target.section]!, item: target.item))
            }
            // Every move is listed here, from its A section, in A's order: moves into other
            // sections too, so the stage's moves need no sorting (in 100 sections, sorting 4,900
            // moves listed in B's order was a tenth of the diff).
            for (index, entry) in interim.enumerated() {
                guard case .old(let s) = entry else { continue }
                let sources = aIDs.positions(ofSection: s)
                let (start, count) = (sources.lowerBound, sources.count)
                guard let t = survivingIndex(ofA: s) else {
                    // Deleted: its dying items go with it, the others leave for other sections.
                    for i in 0..<count where aToB[start + i] >= 0 { items.moved.append(move(i, ofSection: index, at: start)) }
                    continue
                }
                let targets = bIDs.positions(ofSection: t)
                let (stays, deletes, departures) = stayTo.withUnsafeMutableBufferPointer { stayTo in
                    stayFrom.withUnsafeMutableBufferPointer { stayFrom in
                        ItemPartition.partition(aToB, start: start, count: count, targets: targets, stayTo: stayTo, stayFrom: stayFrom)
                    }
                }
                for d in 0..<deletes { items.deleted.append(ItemPath(section: index, item: Int(stayFrom[count - d]))) }
                // Keep the survivors on a longest increasing subsequence, move the others — and
                // those that leave — in A's order.
                stayTo.withUnsafeMutableBufferPointer { subsequence.find(in: UnsafeMutableBufferPointer(rebasing: $0[..<stays])) }
                var (k, d) = (0, 0)
                let off = subsequence.off
                while k < off.count || d < departures {
                    let staying = k < off.count ? Int(stayFrom[Int(off[k])]) : count
                    let leaving = d < departures ? Int(stayTo[count - d]) : count
                    if staying < leaving {
                        items.moved.append(move(staying, ofSection: index, at: start))
                        k += 1
                    } else {
                        items.moved.append(move(leaving, ofSection: index, at: start))
                        d += 1
                    }
                }
            }
            // The B positions the moves go to, for placing item reloads.
            if !moved.isEmpty {
                for m in items.moved {
                    guard case .old(let s) = interim[m.from.section] else { continue }
                    moved[Int(aToB[aIDs.positions(ofSection: s).lowerBound + m.from.item])] = true
                }
            }
        }
        bToA.withUnsafeBufferPointer { bToA in
            for t in b.sections.indices {
                // Items moved here from another section were listed with their section's (above);
                // a section inserted, in stage 1 or 3, brings its new items with it.
                guard let index = interimOfB[t], aIndexOfB[t] != nil else { continue }
                let targets = bIDs.positions(ofSection: t)
                // The inserted items, gathered without a branch on each item (they come at
                // random: a branch on them was mispredicted every time): a sign bit, as for the
                // A side.
                var inserted = 0
                stayTo.withUnsafeMutableBufferPointer { found in
                    for q in targets {
                        found[inserted] = Int32(truncatingIfNeeded: q &- targets.lowerBound)
                        inserted &-= Int(bToA[q] >> 31)
                    }
                }
                for k in 0..<inserted { items.inserted.append(ItemPath(section: index, item: Int(stayTo[k]))) }
            }
        }
        // Reloading a section redraws its items, so items of sections reloaded later need no
        // reload of their own.
        let reloadedSectionIDs = updatedSections.filter { aSection[$0] != nil && bSection[$0] != nil }
        for (p, q) in updated {
            let source = aIDs.path(p)
            let target = bIDs.path(q)
            if reloadedSectionIDs.contains(b.sections[target.section]) { continue }
            let before = ItemPath(section: interimOfA[source.section], item: source.item)
            let after = ItemPath(section: interimOfB[target.section]!, item: target.item)
            if before == after && !moved[q] {
                items.reloaded.append(before)
            } else {
                deferredReloads.append(target)
            }
        }
        return (items, deferredReloads)
    }

    /// The A and B positions of the items both snapshots hold whose content changed, in no
    /// particular order.
    func updatedPairs() -> [(p: Int, q: Int)] {
        var pairs: [(p: Int, q: Int)] = []
        switch updatedItems {
        case .ids(let ids):
            for id in ids {
                let p = table.position(of: id, in: aIDs, bIDs)
                guard p >= 0, aToB[p] >= 0 else { continue }
                pairs.append((p, Int(aToB[p])))
            }
        case .compared(let differ):
            // The survivors in B's order, in runs that stay in one A section and one B section
            // (the A section of each survivor is usually the one of the survivor before it, so
            // it is looked for — a binary search — only when it is not); then each run asked
            // about at once.
            guard !aIDs.sections.isEmpty else { return [] }
            let aStarts = aIDs.starts
            var survivors: [ItemPair] = []
            survivors.reserveCapacity(matchedCount)
            var runs: [(s: Int, t: Int, end: Int)] = []
            var s = 0
            bToA.withUnsafeBufferPointer { bToA in
                for t in b.sections.indices {
                    let targets = bIDs.positions(ofSection: t)
                    for q in targets {
                        let p = Int(bToA[q])
                        guard p >= 0 else { continue }
                        if p < aStarts[s] || p >= aStarts[s + 1] {
                            if survivors.count > (runs.last?.end ?? 0) { runs.append((s, t, survivors.count)) }
                            s = aIDs.section(of: p)
                        }
                        survivors.append(ItemPair(old: p - aStarts[s], new: q - targets.lowerBound))
                    }
                    if survivors.count > (runs.last?.end ?? 0) { runs.append((s, t, survivors.count)) }
                }
            }
            var differing: [Int] = []
            survivors.withUnsafeBufferPointer { survivors in
                var start = 0
                for run in runs {
                    differ(run.s, run.t, UnsafeBufferPointer(rebasing: survivors[start..<run.end]), &differing)
                    let bStart = bIDs.positions(ofSection: run.t).lowerBound
                    for k in differing {
                        pairs.append((aStarts[run.s] + survivors[start + k].old, bStart + survivors[start + k].new))
                    }
                    differing.removeAll(keepingCapacity: true)
                    start = run.end
                }
            }
        }
        return pairs
    }

    /// Stage 3: the sections' deletes, inserts, moves and the reloads of sections that keep their
    /// index, from the interim sections to B; the B indexes of the sections moved and of the
    /// other reloads.
    func planSections() -> (sections: SectionChanges, moved: Set<Int>, deferredReloads: [Int]) {
        var sections = SectionChanges()
        var survivors: [(from: Int, to: Int)] = []
        for (index, entry) in interim.enumerated() {
            switch entry {
            case .old(let s):
                if let t = survivingIndex(ofA: s) { survivors.append((index, t)) } else { sections.deleted.append(index) }
            case .new(let t):
                survivors.append((index, t))
            }
        }
        for t in b.sections.indices where interimOfB[t] == nil { sections.inserted.append(t) }
        let keptSections = longestIncreasingSubsequence(survivors.map(\.to))
        var movedSections = Set<Int>()  // B indices
        for (k, survivor) in survivors.enumerated() where !keptSections[k] {
            sections.moved.append(Move(from: survivor.from, to: survivor.to))
            movedSections.insert(survivor.to)
        }
        var deferredSectionReloads: [Int] = []  // B indices
        for id in updatedSections {
            guard let s = aSection[id], let t = bSection[id] else { continue }
            if interimOfA[s] == t && !movedSections.contains(t) { sections.reloaded.append(t) } else { deferredSectionReloads.append(t) }
        }
        return (sections, movedSections, deferredSectionReloads)
    }

    /// Stage 2 and 3 as one stage, or nil when an item operation touches a section that stage 3
    /// changes. Only called when stage 1 is empty, so the interim sections are A's.
    func merge(_ itemStage: Stage, _ sectionStage: Stage) -> Stage? {
        var touched = Set(sectionStage.sections.deleted)
        touched.formUnion(sectionStage.sections.reloaded)
        touched.formUnion(sectionStage.sections.moved.map(\.from))
        let items = itemStage.items
        let before = items.deleted.map(\.section) + items.reloaded.map(\.section) + items.moved.map(\.from.section)
            + items.inserted.map(\.section) + items.moved.map(\.to.section)
        if before.contains(where: touched.contains) { return nil }
        // Reloads must keep their index path: their section must keep its index too.
        if items.reloaded.contains(where: { survivingIndex(ofA: $0.section) != $0.section }) { return nil }
        if !sectionStage.items.isEmpty { return nil }
        func after(_ path: ItemPath) -> ItemPath {
            ItemPath(section: survivingIndex(ofA: path.section)!, item: path.item)
        }
        var merged = sectionStage
        merged.items = ItemChanges(deleted: items.deleted, inserted: items.inserted.map(after), reloaded: items.reloaded,
                                   moved: items.moved.map { Move(from: $0.from, to: after($0.to)) })
        return merged
    }
}
