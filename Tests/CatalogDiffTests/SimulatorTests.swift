import CatalogModel
import Foundation
import Testing
@testable import CatalogDiff

@Suite("Batch-update simulator")
struct SimulatorTests {
    typealias Shape = SnapshotShape<String, String>

    let a = Shape([("s0", ["a", "b", "c", "d", "e"]), ("s1", ["f", "g"])])

    private func messages(_ stages: [Stage], to b: Shape, updatedItems: Set<String> = [], updatedSections: Set<String> = []) -> [String] {
        BatchUpdateSimulator.violations(of: Changeset(stages: stages), from: a, to: b,
                                        updatedSections: updatedSections, updatedItems: updatedItems).map(\.description)
    }

    private func path(_ s: Int, _ i: Int) -> ItemPath { ItemPath(section: s, item: i) }

    @Test("a valid stage of deletes, inserts and a cross-section move passes")
    func valid() {
        let b = Shape([("s0", ["a", "x", "c", "d"]), ("s1", ["f", "b", "g"])])
        let stage = Stage(items: ItemChanges(deleted: [path(0, 4)], inserted: [path(0, 1)], moved: [Move(from: path(0, 1), to: path(1, 1))]))
        #expect(messages([stage], to: b) == [])
    }

    @Test("deleting past the end, in UIKit's words")
    func deletePastEnd() {
        let b = Shape([("s0", ["a", "b", "c", "d", "e"]), ("s1", ["f", "g"])])
        let found = messages([Stage(items: ItemChanges(deleted: [path(0, 7)]))], to: b)
        #expect(found.contains("stage 0: attempt to delete item 7 from section 0 which only contains 5 items before the update"))
    }

    @Test("a count that does not add up, in UIKit's words")
    func invalidCount() {
        let b = Shape([("s0", ["a", "b", "c", "d", "e"]), ("s1", ["f", "g", "h"])])
        let found = messages([Stage()], to: b)
        #expect(found.contains { $0.hasPrefix("stage 0: invalid number of items in section 1. The number of items contained in an existing section after the update (3) must be equal to the number of items contained in that section before the update (2)") })
        let sections = messages([Stage()], to: Shape([("s0", ["a", "b", "c", "d", "e"])]))
        #expect(sections.contains { $0.hasPrefix("stage 0: invalid number of sections. The number of sections contained in the collection view after the update (1)") })
    }

    @Test("a delete and a move from the same index path")
    func deleteAndMove() {
        let b = Shape([("s0", ["a", "c", "d", "e"]), ("s1", ["f", "g"])])
        let stage = Stage(items: ItemChanges(deleted: [path(0, 1)], moved: [Move(from: path(0, 1), to: path(1, 0))]))
        #expect(messages([stage], to: b).contains("stage 0: attempt to perform a delete and a move from the same index path [0, 1]"))
    }

    @Test("an item operation in a section the same stage deletes or moves (rule 4)")
    func itemInChangedSection() {
        let b = Shape([("s1", ["f", "g"])])
        let stage = Stage(sections: SectionChanges(deleted: [0]), items: ItemChanges(deleted: [path(0, 0)]))
        #expect(messages([stage], to: b).contains { $0.contains("which the same update deletes, reloads or moves") })
    }

    @Test("a reload that shifts in its stage (rule 5), and the same reload alone")
    func reloadMustKeepItsPath() {
        let b = Shape([("s0", ["b", "c", "d", "e"]), ("s1", ["f", "g"])])
        let shifted = Stage(items: ItemChanges(deleted: [path(0, 0)], reloaded: [path(0, 2)]))
        #expect(messages([shifted], to: b, updatedItems: ["c"]).contains { $0.contains("attempt to reload item [0, 2], which does not keep its index path") })
        let staged = [Stage(items: ItemChanges(deleted: [path(0, 0)])), Stage(items: ItemChanges(reloaded: [path(0, 1)]))]
        #expect(messages(staged, to: b, updatedItems: ["c"]) == [])
    }

    @Test("stale content and needless reloads")
    func contentRules() {
        #expect(messages([], to: a, updatedItems: ["c"]) == ["item c changes content but is never reloaded, so its cell would show stale content"])
        #expect(messages([Stage(items: ItemChanges(reloaded: [path(0, 0)]))], to: a) == ["item a is reloaded but its content does not change"])
        #expect(messages([], to: a, updatedSections: ["s1"]) == ["section s1 changes content but is never reloaded"])
        #expect(messages([Stage(sections: SectionChanges(reloaded: [1]))], to: a, updatedItems: ["f"], updatedSections: ["s1"]) == [],
                "a section reload redraws its items")
    }

    @Test("a replay that ends in the wrong order is caught")
    func wrongOrder() {
        let b = Shape([("s0", ["b", "a", "c", "d", "e"]), ("s1", ["f", "g"])])
        #expect(messages([], to: b).contains("after the last stage item [0, 0] is a in the replay but b in the snapshots"))
        #expect(messages([Stage(items: ItemChanges(moved: [Move(from: path(0, 0), to: path(0, 1))]))], to: b) == [])
    }

    @Test("a snapshot that repeats an id has no valid changeset")
    func duplicateIDs() {
        let b = Shape([("s0", ["a", "b", "a"]), ("s1", ["f", "g"])])
        #expect(messages([], to: b) == ["the snapshot after repeats ids: duplicate item ids: a"])
    }

    @Test("indices twice in a role, and sections out of range")
    func duplicatesAndRanges() {
        let b = Shape([("s0", ["c", "d", "e"]), ("s1", ["f", "g"])])
        #expect(messages([Stage(items: ItemChanges(deleted: [path(0, 0), path(0, 0)]))], to: b).contains("stage 0: attempt to delete index path [0, 0] twice"))
        #expect(messages([Stage(sections: SectionChanges(deleted: [5]))], to: b).contains("stage 0: attempt to delete section 5, but there are only 2 sections before the update"))
        #expect(messages([Stage(sections: SectionChanges(inserted: [4]))], to: b).contains { $0.contains("attempt to insert section 4 but there are only 3 sections after the update") })
    }

    @Test("dropping any one operation of a valid changeset makes it invalid")
    func droppedOperations() throws {
        var random = SplitMix64(seed: 314)
        var checked = 0
        while checked < 400 {
            let pair = DiffPropertyTests.randomPair(&random)
            let changeset = try StagedDiff.changeset(from: pair.a, to: pair.b, updatedSections: pair.updatedSections, updatedItems: pair.updatedItems)
            guard !changeset.isEmpty else { continue }
            let k = Int(random.next() % UInt64(changeset.stages.count))
            var stage = changeset.stages[k]
            var lists: [(String, () -> Void)] = []
            if !stage.items.deleted.isEmpty { lists.append(("item delete", { stage.items.deleted.removeLast() })) }
            if !stage.items.inserted.isEmpty { lists.append(("item insert", { stage.items.inserted.removeLast() })) }
            // A move into a section inserted by an earlier stage may be dropped validly: the item
            // then leaves with its old section and arrives with the new one (delete + insert).
            let earlySections = k > 0 && changeset.stages[0].items.isEmpty ? Set(changeset.stages[0].sections.inserted) : []
            if let m = stage.items.moved.lastIndex(where: { !earlySections.contains($0.to.section) }) {
                lists.append(("item move", { stage.items.moved.remove(at: m) }))
            }
            if !stage.items.reloaded.isEmpty { lists.append(("item reload", { stage.items.reloaded.removeLast() })) }
            if !stage.sections.deleted.isEmpty { lists.append(("section delete", { stage.sections.deleted.removeLast() })) }
            if !stage.sections.inserted.isEmpty { lists.append(("section insert", { stage.sections.inserted.removeLast() })) }
            if !stage.sections.moved.isEmpty { lists.append(("section move", { stage.sections.moved.removeLast() })) }
            if !stage.sections.reloaded.isEmpty { lists.append(("section reload", { stage.sections.reloaded.removeLast() })) }
            guard !lists.isEmpty else { continue }
            let (dropped, drop) = lists[Int(random.next() % UInt64(lists.count))]
            drop()
            var broken = changeset
            broken.stages[k] = stage
            let violations = BatchUpdateSimulator.violations(of: broken, from: pair.a, to: pair.b,
                                                             updatedSections: pair.updatedSections, updatedItems: pair.updatedItems)
            #expect(!violations.isEmpty, "dropping the last \(dropped) of stage \(k) from \(changeset) for \(pair.a) → \(pair.b) went unnoticed")
            checked += 1
        }
    }

    @Test("the changeset JSON of docs/Changesets.md decodes, and encodes back without empty lists")
    func json() throws {
        let text = #"{"stages": [{"sections": {"deleted": [2], "inserted": [0], "reloaded": [], "moved": [[1, 3]]}, "items": {"deleted": [[0, 3]], "inserted": [[0, 1]], "reloaded": [[1, 0]], "moved": [[[0, 0], [1, 2]]]}}], "fromRevision": 4}"#
        let changeset = try JSONDecoder().decode(Changeset.self, from: Data(text.utf8))
        #expect(changeset.stages[0].sections.moved == [Move(from: 1, to: 3)])
        #expect(changeset.stages[0].items.moved == [Move(from: path(0, 0), to: path(1, 2))])
        #expect(changeset.fromRevision == 4 && changeset.toRevision == nil)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let encoded = String(decoding: try encoder.encode(changeset), as: UTF8.self)
        #expect(!encoded.contains("\"reloaded\":[]"))
        #expect(try JSONDecoder().decode(Changeset.self, from: Data(encoded.utf8)) == changeset)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Changeset.self, from: Data(#"{"stages": [{"items": {"moved": [[[0, 0]]]}}]}"#.utf8)) }
    }
}
