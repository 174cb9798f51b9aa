/// Checks a changeset against the changeset rules (docs/Changesets.md) — the safe subset of what
/// `UICollectionView.performBatchUpdates` accepts — and replays it, off any device.
///
/// The stages are replayed forwards from A and backwards from B. Forwards, every operation is
/// checked against the state before the stage and the item counts UIKit would ask the data source
/// for after it (which the backward replay supplies); at every stage boundary both replays must
/// agree on section and item counts and on every id both know. Violations use UIKit's own words
/// where UIKit has them ("invalid number of items in section 1: …").
public enum BatchUpdateSimulator {
    /// One broken rule: in which stage (0-based; nil for the changeset as a whole) and what.
    public struct Violation: Sendable, Hashable, CustomStringConvertible {
        public var stage: Int?
        public var message: String

        public var description: String {
            stage.map { "stage \($0): \(message)" } ?? message
        }
    }

    /// Every rule the changeset breaks when it is applied to `a` to reach `b`; empty when it is valid.
    /// `updatedItems` and `updatedSections` are the ids whose content differs between the snapshots:
    /// each must be reloaded (or inserted afresh) in some stage, and nothing else may be reloaded.
    @_specialize(where S == String, I == String)
    @_specialize(where S == Int, I == Int)
    public static func violations<S, I>(
        of changeset: Changeset, from a: SnapshotShape<S, I>, to b: SnapshotShape<S, I>,
        updatedSections: Set<S> = [], updatedItems: Set<I> = []
    ) -> [Violation] {
        // Ids are how both replays line up; a snapshot that repeats one has no valid changeset.
        var duplicates: [Violation] = []
        for (label, shape) in [("the snapshot before", a), ("the snapshot after", b)] {
            do throws(DuplicateIDError) {
                try shape.checkUniqueIDs()
            } catch {
                duplicates.append(Violation(stage: nil, message: "\(label) repeats ids: \(error)"))
            }
        }
        if !duplicates.isEmpty { return duplicates }
        var replay = Replay<S, I>(changeset: changeset, a: a, b: b)
        replay.run(updatedSections: updatedSections, updatedItems: updatedItems)
        return replay.violations
    }
}

/// A snapshot during replay: ids are nil where this direction of the replay cannot know them
/// (items inserted, forwards; items deleted, backwards).
struct ReplayState<S: Hashable & Sendable, I: Hashable & Sendable> {
    struct Section {
        var id: S?
        var items: [I?]
        /// False for a section whose content this direction cannot know (one the backward replay
        /// meets before a later stage deletes it): its items are not compared.
        var isKnown = true

        static var unknown: Section { Section(id: nil, items: [], isKnown: false) }
    }

    var sections: [Section]

    init(_ shape: SnapshotShape<S, I>) {
        sections = zip(shape.sections, shape.items).map { Section(id: $0, items: $1.map { $0 }) }
    }

    init(sections: [Section]) {
        self.sections = sections
    }
}

struct Replay<S: Hashable & Sendable, I: Hashable & Sendable> {
    typealias State = ReplayState<S, I>
    typealias Violation = BatchUpdateSimulator.Violation

    let changeset: Changeset
    let a: SnapshotShape<S, I>
    let b: SnapshotShape<S, I>
    var violations: [Violation] = []

    init(changeset: Changeset, a: SnapshotShape<S, I>, b: SnapshotShape<S, I>) {
        self.changeset = changeset
        self.a = a
        self.b = b
    }

    mutating func fail(_ stage: Int?, _ message: String) {
        violations.append(Violation(stage: stage, message: message))
    }

    mutating func run(updatedSections: Set<S>, updatedItems: Set<I>) {
        let stages = changeset.stages
        // Backwards from B: backward[k] is the state before stage k (nil where the stage cannot
        // be undone, which the forward pass reports).
        var backward = [State?](repeating: nil, count: stages.count + 1)
        backward[stages.count] = State(b)
        for k in stages.indices.reversed() {
            guard let after = backward[k + 1] else { break }
            backward[k] = Self.undo(stages[k], from: after)
            if backward[k] == nil {
                fail(k, "the stage does not fit the state the target snapshot implies after it: an index or count is out of range")
            }
        }
        // Forwards from A, checking each stage against the counts the data source gives after it.
        var forward = State(a)
        var refreshedItems = Set<I>()
        var refreshedSections = Set<S>()
        var reloadedItems: [I] = []
        var reloadedSections: [S] = []
        compare(forward, backward[0], boundary: 0)
        for (k, stage) in stages.enumerated() {
            guard let after = apply(stage, k, to: forward, expected: backward[k + 1]) else {
                // The stage is invalid; go on from what the data source says so that later
                // stages are still checked.
                guard let next = backward[k + 1] else { return }
                forward = next
                continue
            }
            // What this stage reloads or brings in fresh.
            for path in stage.items.reloaded {
                if let id = forward.sections[path.section].items[path.item] ?? backward[k]?.sections[path.section].items[path.item] {
                    reloadedItems.append(id)
                    refreshedItems.insert(id)
                }
            }
            for s in stage.sections.reloaded {
                if let id = forward.sections[s].id ?? backward[k]?.sections[s].id {
                    reloadedSections.append(id)
                    refreshedSections.insert(id)
                }
                // Reloading a section redraws its items too.
                refreshedItems.formUnion(forward.sections[s].items.compactMap { $0 })
            }
            if let known = backward[k + 1] {
                for s in stage.sections.inserted {
                    if let id = known.sections[s].id { refreshedSections.insert(id) }
                    refreshedItems.formUnion(known.sections[s].items.compactMap { $0 })
                }
                for path in stage.items.inserted {
                    if let id = known.sections[path.section].items[path.item] { refreshedItems.insert(id) }
                }
            }
            forward = after
            compare(forward, backward[k + 1], boundary: k + 1)
        }

        // Content: every changed item and section is redrawn; nothing unchanged is reloaded.
        let aItems = Set(a.items.joined())
        let bItems = Set(b.items.joined())
        for id in updatedItems where aItems.contains(id) && bItems.contains(id) && !refreshedItems.contains(id) {
            fail(nil, "item \(id) changes content but is never reloaded, so its cell would show stale content")
        }
        for id in reloadedItems where !updatedItems.contains(id) {
            fail(nil, "item \(id) is reloaded but its content does not change")
        }
        let aSections = Set(a.sections)
        let bSections = Set(b.sections)
        for id in updatedSections where aSections.contains(id) && bSections.contains(id) && !refreshedSections.contains(id) {
            fail(nil, "section \(id) changes content but is never reloaded")
        }
        for id in reloadedSections where !updatedSections.contains(id) {
            fail(nil, "section \(id) is reloaded but its content does not change")
        }
    }

    /// Both replays must agree at a stage boundary: the counts UIKit checks, and every id both know.
    mutating func compare(_ forward: State, _ backward: State?, boundary: Int) {
        guard let backward else { return }
        let label = boundary == changeset.stages.count ? "after the last stage"
            : boundary == 0 ? "before the first stage" : "after stage \(boundary - 1)"
        guard forward.sections.count == backward.sections.count else {
            fail(nil, "\(label) the replay has \(forward.sections.count) sections where the snapshots imply \(backward.sections.count)")
            return
        }
        for (s, (f, g)) in zip(forward.sections, backward.sections).enumerated() {
            if let x = f.id, let y = g.id, x != y {
                fail(nil, "\(label) section \(s) is \(x) in the replay but \(y) in the snapshots")
            }
            guard f.isKnown && g.isKnown else { continue }
            guard f.items.count == g.items.count else {
                fail(nil, "\(label) section \(s) holds \(f.items.count) items in the replay but \(g.items.count) in the snapshots")
                continue
            }
            for (i, (x, y)) in zip(f.items, g.items).enumerated() {
                if let x, let y, x != y {
                    fail(nil, "\(label) item [\(s), \(i)] is \(x) in the replay but \(y) in the snapshots")
                }
            }
        }
    }

    // MARK: - Forward

    /// The state after `stage`, or nil when the stage breaks a rule (recorded in `violations`).
    /// `expected` is the state the data source reports after the stage, when known.
    mutating func apply(_ stage: Stage, _ k: Int, to before: State, expected: State?) -> State? {
        let start = violations.count
        let sec = stage.sections
        let n = before.sections.count
        let m = n - sec.deleted.count + sec.inserted.count

        // Section indices: range, duplicates, roles.
        for (role, indices) in [("delete", sec.deleted), ("reload", sec.reloaded), ("move", sec.moved.map(\.from))] {
            for s in indices where s < 0 || s >= n {
                fail(k, "attempt to \(role) section \(s), but there are only \(n) sections before the update")
            }
        }
        if let expected, m != expected.sections.count {
            fail(k, "invalid number of sections. The number of sections contained in the collection view after the update "
                 + "(\(expected.sections.count)) must be equal to the number of sections contained in the collection view "
                 + "before the update (\(n)), plus or minus the number of sections inserted or deleted "
                 + "(\(sec.inserted.count) inserted, \(sec.deleted.count) deleted).")
        }
        for s in sec.inserted where s < 0 || s >= m {
            fail(k, "attempt to insert section \(s) but there are only \(m) sections after the update")
        }
        for move in sec.moved where move.to < 0 || move.to >= m {
            fail(k, "attempt to move section \(move.from) to section \(move.to), but there are only \(m) sections after the update")
        }
        checkRoles(k, old: [("delete", sec.deleted), ("reload", sec.reloaded), ("move", sec.moved.map(\.from))],
                   new: [("insert", sec.inserted), ("move", sec.moved.map(\.to))], describe: { "section \($0)" })
        guard violations.count == start else { return nil }

        // Sections after the stage: inserted and moved-in slots, the rest in order.
        var slots = [State.Section?](repeating: nil, count: m)
        var afterIndexOfBefore = [Int?](repeating: nil, count: n)
        for s in sec.inserted {
            slots[s] = expected?.sections[s] ?? .unknown
        }
        for move in sec.moved {
            slots[move.to] = before.sections[move.from]
            afterIndexOfBefore[move.from] = move.to
        }
        let removed = Set(sec.deleted).union(sec.moved.map(\.from))
        var free = (0..<m).filter { slots[$0] == nil }.makeIterator()
        for s in 0..<n where !removed.contains(s) {
            let t = free.next()!
            slots[t] = before.sections[s]
            afterIndexOfBefore[s] = t
        }
        var after = State(sections: slots.map { $0! })

        // Items: only in sections this stage leaves alone (rule 4).
        let items = stage.items
        let touchedBefore = Set(sec.deleted).union(sec.reloaded).union(sec.moved.map(\.from))
        let touchedAfter = Set(sec.inserted).union(sec.moved.map(\.to)).union(sec.reloaded.compactMap { afterIndexOfBefore[$0] })
        let oldRoles: [(String, [ItemPath])] = [("delete", items.deleted), ("reload", items.reloaded), ("move", items.moved.map(\.from))]
        let newRoles: [(String, [ItemPath])] = [("insert", items.inserted), ("move", items.moved.map(\.to))]
        for (role, paths) in oldRoles {
            for path in paths {
                if path.section < 0 || path.section >= n {
                    fail(k, "attempt to \(role) item \(path.item) from section \(path.section), but there are only \(n) sections before the update")
                } else if touchedBefore.contains(path.section) {
                    fail(k, "attempt to \(role) item \(path) in section \(path.section), which the same update deletes, reloads or moves")
                } else if path.item < 0 || path.item >= before.sections[path.section].items.count {
                    fail(k, "attempt to \(role) item \(path.item) from section \(path.section) which only contains "
                         + "\(before.sections[path.section].items.count) items before the update")
                }
            }
        }
        for (role, paths) in newRoles {
            for path in paths {
                if path.section < 0 || path.section >= m {
                    fail(k, "attempt to \(role) item \(path.item) into section \(path.section), but there are only \(m) sections after the update")
                } else if touchedAfter.contains(path.section) {
                    fail(k, "attempt to \(role) item \(path) into section \(path.section), which the same update inserts, reloads or moves")
                }
            }
        }
        checkRoles(k, old: oldRoles, new: newRoles, describe: { "index path \($0)" })
        guard violations.count == start else { return nil }

        // Per surviving section: the count UIKit checks, then the items after the stage.
        var beforeOfAfter = [Int?](repeating: nil, count: m)
        for (s, t) in afterIndexOfBefore.enumerated() { if let t { beforeOfAfter[t] = s } }
        var deletedIn = [Int: [Int]](), movedOutOf = [Int: [Int]](), insertedIn = [Int: [Int]](), movedInto = [Int: [(Int, I?)]]()
        for path in items.deleted { deletedIn[path.section, default: []].append(path.item) }
        for move in items.moved {
            movedOutOf[move.from.section, default: []].append(move.from.item)
            movedInto[move.to.section, default: []].append((move.to.item, before.sections[move.from.section].items[move.from.item]))
        }
        for path in items.inserted { insertedIn[path.section, default: []].append(path.item) }
        for t in 0..<m {
            guard let s = beforeOfAfter[t], !touchedAfter.contains(t) else { continue }
            let old = before.sections[s].items
            let deleted = deletedIn[s] ?? [], out = movedOutOf[s] ?? []
            let inserted = insertedIn[t] ?? [], into = movedInto[t] ?? []
            let count = old.count - deleted.count - out.count + inserted.count + into.count
            if let expected, expected.sections[t].isKnown, expected.sections[t].items.count != count {
                fail(k, "invalid number of items in section \(t). The number of items contained in an existing section after "
                     + "the update (\(expected.sections[t].items.count)) must be equal to the number of items contained in that "
                     + "section before the update (\(old.count)), plus or minus the number of items inserted or deleted from "
                     + "that section (\(inserted.count) inserted, \(deleted.count) deleted) and plus or minus the number of "
                     + "items moved into or out of that section (\(into.count) moved in, \(out.count) moved out).")
                continue
            }
            var itemSlots = [I??](repeating: nil, count: max(count, 0))
            var bad = false
            for i in inserted {
                if i < 0 || i >= count {
                    fail(k, "attempt to insert item \(i) into section \(t), but there are only \(count) items in section \(t) after the update")
                    bad = true
                } else { itemSlots[i] = .some(nil) }
            }
            for (i, id) in into {
                if i < 0 || i >= count {
                    fail(k, "attempt to move an item to index path [\(t), \(i)], but there are only \(count) items in section \(t) after the update")
                    bad = true
                } else { itemSlots[i] = .some(id) }
            }
            if bad { continue }
            let gone = Set(deleted).union(out)
            var freeItems = (0..<count).filter { itemSlots[$0] == nil }.makeIterator()
            var afterIndexOfItem = [Int: Int]()
            for i in old.indices where !gone.contains(i) {
                let j = freeItems.next()!
                itemSlots[j] = .some(old[i])
                afterIndexOfItem[i] = j
            }
            after.sections[t].items = itemSlots.map { $0! }
            for path in items.reloaded where path.section == s {
                let j = afterIndexOfItem[path.item]
                if t != s || j != path.item {
                    fail(k, "attempt to reload item \(path), which does not keep its index path through the update "
                         + "(it ends at [\(t), \(j.map(String.init) ?? "?")]); put reloads in a stage where nothing before them shifts")
                }
            }
        }
        return violations.count == start ? after : nil
    }

    /// Rule 2: no index twice in a role, no old index in two roles, no new index in two roles.
    mutating func checkRoles<Index: Hashable>(_ k: Int, old: [(String, [Index])], new: [(String, [Index])], describe: (Index) -> String) {
        for (group, direction) in [(old, "from"), (new, "to")] {
            var seen: [Index: String] = [:]
            for (role, indices) in group {
                var inRole = Set<Index>()
                for index in indices {
                    if !inRole.insert(index).inserted {
                        fail(k, "attempt to \(role) \(describe(index)) twice")
                    } else if let other = seen[index] {
                        fail(k, "attempt to perform a \(other) and a \(role) \(direction) the same \(describe(index))")
                    } else {
                        seen[index] = role
                    }
                }
            }
        }
    }

    // MARK: - Backward

    /// The state before `stage`, from the state after it; nil when the indices do not fit.
    static func undo(_ stage: Stage, from after: State) -> State? {
        let sec = stage.sections
        let m = after.sections.count
        let n = m - sec.inserted.count + sec.deleted.count
        guard n >= 0,
              sec.inserted.allSatisfy({ (0..<m).contains($0) }),
              sec.moved.allSatisfy({ (0..<m).contains($0.to) && (0..<n).contains($0.from) }),
              sec.deleted.allSatisfy({ (0..<n).contains($0) }),
              Set(sec.inserted).union(sec.moved.map(\.to)).count == sec.inserted.count + sec.moved.count,
              Set(sec.deleted).union(sec.moved.map(\.from)).count == sec.deleted.count + sec.moved.count
        else { return nil }
        var slots = [State.Section?](repeating: nil, count: n)
        var beforeIndexOfAfter = [Int?](repeating: nil, count: m)
        for s in sec.deleted { slots[s] = .unknown }
        for move in sec.moved {
            slots[move.from] = after.sections[move.to]
            beforeIndexOfAfter[move.to] = move.from
        }
        let added = Set(sec.inserted).union(sec.moved.map(\.to))
        var free = (0..<n).filter { slots[$0] == nil }.makeIterator()
        for t in 0..<m where !added.contains(t) {
            guard let s = free.next() else { return nil }
            slots[s] = after.sections[t]
            beforeIndexOfAfter[t] = s
        }
        var before = State(sections: slots.map { $0 ?? .unknown })
        let items = stage.items
        var deletedIn = [Int: [Int]](), movedOutOf = [Int: [(Int, I?)]](), insertedIn = [Int: [Int]](), movedInto = [Int: [Int]]()
        for path in items.deleted { deletedIn[path.section, default: []].append(path.item) }
        for path in items.inserted { insertedIn[path.section, default: []].append(path.item) }
        for move in items.moved {
            guard (0..<m).contains(move.to.section) else { return nil }
            let target = after.sections[move.to.section]
            guard !target.isKnown || (0..<target.items.count).contains(move.to.item) else { return nil }
            movedInto[move.to.section, default: []].append(move.to.item)
            movedOutOf[move.from.section, default: []].append((move.from.item, target.isKnown ? target.items[move.to.item] : nil))
        }
        for t in 0..<m {
            guard let s = beforeIndexOfAfter[t], !sec.inserted.contains(t), after.sections[t].isKnown else { continue }
            let new = after.sections[t].items
            let inserted = insertedIn[t] ?? [], into = movedInto[t] ?? []
            let deleted = deletedIn[s] ?? [], out = movedOutOf[s] ?? []
            let count = new.count - inserted.count - into.count + deleted.count + out.count
            guard count >= 0 else { return nil }
            var itemSlots = [I??](repeating: nil, count: count)
            for i in deleted {
                guard (0..<count).contains(i) else { return nil }
                itemSlots[i] = .some(nil)
            }
            for (i, id) in out {
                guard (0..<count).contains(i) else { return nil }
                itemSlots[i] = .some(id)
            }
            let added = Set(inserted).union(into)
            var freeItems = (0..<count).filter { itemSlots[$0] == nil }.makeIterator()
            for j in new.indices where !added.contains(j) {
                guard let i = freeItems.next() else { return nil }
                itemSlots[i] = .some(new[j])
            }
            before.sections[s].items = itemSlots.map { $0 ?? nil }
        }
        return before
    }
}
