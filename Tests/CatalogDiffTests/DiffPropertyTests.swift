import CatalogModel
import Testing
@testable import CatalogDiff

/// Random snapshot pairs; every changeset must pass the simulator, reload exactly the changed
/// items and use exactly the fewest moves.
@Suite("Diff properties")
struct DiffPropertyTests {
    typealias Shape = SnapshotShape<Int, Int>

    struct Pair {
        var a: Shape
        var b: Shape
        var updatedSections: Set<Int>
        var updatedItems: Set<Int>
    }

    /// 0–10 sections, 0–200 items; ids from one pool so items cross sections; empty sections,
    /// section moves and content changes. Half the pairs are small edits, half unrelated.
    static func randomPair(_ random: inout SplitMix64) -> Pair {
        func pick(_ n: Int) -> Int { n <= 0 ? 0 : Int(random.next() % UInt64(n)) }
        let sectionPool = 14
        let itemPool = 240
        func randomShape() -> Shape {
            var sectionIDs = Array(0..<sectionPool)
            sectionIDs.shuffle(using: &random)
            let sections = Array(sectionIDs.prefix(pick(11)))
            var itemIDs = Array(0..<itemPool)
            itemIDs.shuffle(using: &random)
            var items = [[Int]](repeating: [], count: sections.count)
            if !sections.isEmpty {
                for id in itemIDs.prefix(pick(201)) { items[pick(sections.count)].append(id) }
            }
            return Shape(sections: sections, items: items)
        }
        let a = randomShape()
        var b: Shape
        if random.next() % 2 == 0 {
            b = randomShape()
        } else {
            // A small edit of A: a few deletes, inserts, moves across and within sections,
            // a section deleted, inserted or moved.
            b = a
            for _ in 0..<pick(6) {
                guard !b.sections.isEmpty else { break }
                switch pick(7) {
                case 0:  // delete an item
                    let s = pick(b.sections.count)
                    if !b.items[s].isEmpty { b.items[s].remove(at: pick(b.items[s].count)) }
                case 1:  // insert a fresh item
                    let used = Set(b.items.joined())
                    if let id = (0..<itemPool).first(where: { !used.contains($0) && random.next() % 3 == 0 }) {
                        let s = pick(b.sections.count)
                        b.items[s].insert(id, at: pick(b.items[s].count + 1))
                    }
                case 2, 3:  // move an item, maybe to another section
                    let s = pick(b.sections.count)
                    guard !b.items[s].isEmpty else { break }
                    let id = b.items[s].remove(at: pick(b.items[s].count))
                    let t = pick(b.sections.count)
                    b.items[t].insert(id, at: pick(b.items[t].count + 1))
                case 4:  // delete a section
                    let s = pick(b.sections.count)
                    b.sections.remove(at: s)
                    b.items.remove(at: s)
                case 5:  // insert a section, possibly holding items taken from others
                    let used = Set(b.sections)
                    if let id = (0..<sectionPool).first(where: { !used.contains($0) }) {
                        var taken: [Int] = []
                        for s in b.items.indices where !b.items[s].isEmpty && random.next() % 3 == 0 {
                            taken.append(b.items[s].removeLast())
                        }
                        let at = pick(b.sections.count + 1)
                        b.sections.insert(id, at: at)
                        b.items.insert(taken, at: at)
                    }
                default:  // move a section
                    let s = pick(b.sections.count)
                    let (id, items) = (b.sections.remove(at: s), b.items.remove(at: s))
                    let t = pick(b.sections.count + 1)
                    b.sections.insert(id, at: t)
                    b.items.insert(items, at: t)
                }
            }
        }
        let commonItems = Set(a.items.joined()).intersection(b.items.joined())
        let commonSections = Set(a.sections).intersection(b.sections)
        return Pair(a: a, b: b,
                    updatedSections: Set(commonSections.filter { _ in random.next() % 5 == 0 }),
                    updatedItems: Set(commonItems.filter { _ in random.next() % 6 == 0 }))
    }

    /// The fewest item and section moves any valid changeset can have, from the slow O(n²)
    /// longest-increasing-subsequence search: bounding the diff with its own LIS would let a LIS
    /// that drops an element pass.
    static func moveLowerBound(_ pair: Pair) -> (items: Int, sections: Int) {
        var bSection: [Int: Int] = [:]
        for (s, id) in pair.b.sections.enumerated() { bSection[id] = s }
        var bItem: [Int: (Int, Int)] = [:]
        for (s, ids) in pair.b.items.enumerated() { for (i, id) in ids.enumerated() { bItem[id] = (s, i) } }
        var itemMoves = 0
        for (s, ids) in pair.a.items.enumerated() {
            let t = bSection[pair.a.sections[s]]
            var stays: [Int] = []
            for id in ids {
                guard let (u, j) = bItem[id] else { continue }
                if u == t { stays.append(j) } else { itemMoves += 1 }
            }
            itemMoves += stays.count - IDTableTests.slowLength(stays)
        }
        let survivors = pair.a.sections.compactMap { bSection[$0] }
        let sectionMoves = survivors.count - IDTableTests.slowLength(survivors)
        return (itemMoves, sectionMoves)
    }

    /// The pair with every item id spread over all of `Int` (a bijection): the diff then matches
    /// ids through its hash table instead of the dense table it uses for a narrow range.
    static func spread(_ pair: Pair) -> Pair {
        func spread(_ id: Int) -> Int { id &* -0x61C8_8646_80B5_83EB }
        func spread(_ shape: Shape) -> Shape { Shape(sections: shape.sections, items: shape.items.map { $0.map(spread) }) }
        return Pair(a: spread(pair.a), b: spread(pair.b), updatedSections: pair.updatedSections,
                    updatedItems: Set(pair.updatedItems.map(spread)))
    }

    @Test("10,000 random pairs: every changeset is valid, reloads exactly the changes and uses the fewest moves",
          arguments: [false, true])
    func randomPairs(spreadIDs: Bool) throws {
        var random = SplitMix64(seed: 0xCA7A_1061)
        var stageCounts = [Int: Int]()
        for n in 0..<10_000 {
            let pair = spreadIDs ? Self.spread(Self.randomPair(&random)) : Self.randomPair(&random)
            let changeset = try StagedDiff.changeset(from: pair.a, to: pair.b,
                                                     updatedSections: pair.updatedSections, updatedItems: pair.updatedItems)
            let violations = BatchUpdateSimulator.violations(of: changeset, from: pair.a, to: pair.b,
                                                             updatedSections: pair.updatedSections, updatedItems: pair.updatedItems)
            if !violations.isEmpty {
                Issue.record("pair \(n): \(violations.prefix(3)) for \(pair.a) → \(pair.b), changeset \(changeset)")
                return
            }
            let bound = Self.moveLowerBound(pair)
            let itemMoves = changeset.stages.reduce(0) { $0 + $1.items.moved.count }
            let sectionMoves = changeset.stages.reduce(0) { $0 + $1.sections.moved.count }
            // Item moves must equal the bound. Sections inserted early (to receive moved items) may
            // each need one move later, so section moves may exceed the bound by their number.
            let early = changeset.stages.first.map { $0.items.isEmpty ? $0.sections.inserted.count : 0 } ?? 0
            if itemMoves != bound.items || sectionMoves > bound.sections + early {
                Issue.record("pair \(n): \(itemMoves) item moves (bound \(bound.items)), \(sectionMoves) section moves (bound \(bound.sections))")
                return
            }
            stageCounts[changeset.stages.count, default: 0] += 1
        }
        #expect(stageCounts.keys.max()! <= 5)
    }

    @Test("a few 100k-item pairs are valid too")
    func largePairs() throws {
        var random = SplitMix64(seed: 5)
        for _ in 0..<3 {
            var ids = Array(0..<100_000)
            ids.shuffle(using: &random)
            let a = Shape(sections: Array(0..<100), items: (0..<100).map { Array(ids[$0 * 1000..<($0 + 1) * 1000]) })
            var b = a
            b.items[3].removeSubrange(100..<600)
            b.items[7].append(contentsOf: 100_000..<100_500)
            b.items[9].swapAt(0, 999)
            let moved = b.items[20].removeFirst()
            b.items[50].insert(moved, at: 10)
            b.sections.swapAt(1, 80)
            b.items.swapAt(1, 80)
            let updated = Set(a.items[40].prefix(50))
            let changeset = try StagedDiff.changeset(from: a, to: b, updatedItems: updated)
            #expect(BatchUpdateSimulator.violations(of: changeset, from: a, to: b, updatedItems: updated).isEmpty)
        }
    }
}
