import CatalogModel
import Testing
@testable import CatalogDiff

@Suite("Staged diff")
struct StagedDiffTests {
    typealias Shape = SnapshotShape<String, String>

    private func path(_ s: Int, _ i: Int) -> ItemPath { ItemPath(section: s, item: i) }

    @Test("identical snapshots need no stage")
    func identical() throws {
        let a = Shape([("s", ["a", "b"])])
        #expect(try StagedDiff.changeset(from: a, to: a).stages.isEmpty)
    }

    @Test("content edits alone are one stage of reloads")
    func reloadsOnly() throws {
        let a = Shape([("s", ["a", "b", "c"])])
        let changeset = try StagedDiff.changeset(from: a, to: a, updatedItems: ["b"])
        #expect(changeset.stages == [Stage(items: ItemChanges(reloaded: [path(0, 1)]))])
    }

    @Test("a reorder moves only the items off the longest increasing subsequence")
    func fewestMoves() throws {
        let a = Shape([("s", ["a", "b", "c", "d", "e"])])
        let b = Shape([("s", ["b", "c", "d", "e", "a"])])
        let changeset = try StagedDiff.changeset(from: a, to: b)
        #expect(changeset.stages == [Stage(items: ItemChanges(moved: [Move(from: path(0, 0), to: path(0, 4))]))])
    }

    @Test("an item that moves and changes is moved in one stage and reloaded in a later one")
    func moveAndReload() throws {
        let a = Shape([("s", ["a", "b", "c"])])
        let b = Shape([("s", ["b", "c", "a"])])
        let changeset = try StagedDiff.changeset(from: a, to: b, updatedItems: ["a"])
        try #require(changeset.stages.count == 2)
        #expect(changeset.stages[1] == Stage(items: ItemChanges(reloaded: [path(0, 2)])))
        #expect(BatchUpdateSimulator.violations(of: changeset, from: a, to: b, updatedItems: ["a"]).isEmpty)
    }

    @Test("a book moved across shelves is a move, not a delete and an insert")
    func crossSection() throws {
        let a = Shape([("top", ["a", "b"]), ("bottom", ["c"])])
        let b = Shape([("top", ["a"]), ("bottom", ["b", "c"])])
        let changeset = try StagedDiff.changeset(from: a, to: b)
        #expect(changeset.stages == [Stage(items: ItemChanges(moved: [Move(from: path(0, 1), to: path(1, 0))]))])
    }

    @Test("an item moving into a new section: the section is inserted first, then the move")
    func moveIntoNewSection() throws {
        let a = Shape([("old", ["a", "b"])])
        let b = Shape([("old", ["a"]), ("new", ["x", "b"])])
        let changeset = try StagedDiff.changeset(from: a, to: b)
        try #require(changeset.stages.count == 2)
        #expect(changeset.stages[0] == Stage(sections: SectionChanges(inserted: [1])))
        #expect(changeset.stages[1] == Stage(items: ItemChanges(moved: [Move(from: path(0, 1), to: path(1, 1))])))
        #expect(BatchUpdateSimulator.violations(of: changeset, from: a, to: b).isEmpty)
    }

    @Test("item changes beside unrelated section changes share one stage")
    func merged() throws {
        let a = Shape([("a", ["1", "2"]), ("gone", ["3"])])
        let b = Shape([("a", ["2", "1", "4"]), ("fresh", ["5"])])
        let changeset = try StagedDiff.changeset(from: a, to: b)
        #expect(changeset.stages.count == 1)
        #expect(BatchUpdateSimulator.violations(of: changeset, from: a, to: b).isEmpty)
    }

    @Test("duplicate ids are refused with the list of duplicates")
    func duplicates() {
        let bad = Shape([("s", ["a", "b", "a"]), ("s", ["c", "b"])])
        #expect(throws: DuplicateIDError(sections: ["s"], items: ["a", "b"])) {
            try StagedDiff.changeset(from: bad, to: Shape([]))
        }
        #expect(DuplicateIDError(sections: ["s"], items: ["a", "b"]).description == "duplicate section ids: s; duplicate item ids: a, b")
    }

    @Test("ids B repeats are listed once per repeat, in B's order, however the lookup found them")
    func repeatsInB() {
        // String ids (which the diff hashes), in A's order: B repeats some of them early — each
        // such copy is an id that is not where A has it while the one after it is, which the
        // lookup probes for after it has found the later copy in order.
        var random = SplitMix64(seed: 41)
        for round in 0..<300 {
            let a = (0..<(20 + round % 40)).map { "id-\($0 &* 7_919)" }
            var b = a
            for _ in 0..<(1 + round % 4) {
                let id = a[Int(random.next() % UInt64(a.count))]
                b.insert(id, at: Int(random.next() % UInt64(b.count + 1)))
            }
            if round % 3 == 0 { b.insert("new-\(round)", at: 0); b.append("new-\(round)") }
            // Every occurrence after the first, in B's order.
            let repeated = b.indices.filter { b[..<$0].contains(b[$0]) }.map { b[$0] }
            let sectioned = round % 2 == 0 ? Shape([("s", a)]) : Shape([("s", Array(a[..<10])), ("t", Array(a[10...]))])
            #expect(throws: DuplicateIDError(sections: [], items: repeated)) {
                try StagedDiff.changeset(from: sectioned, to: Shape([("s", b)]))
            }
        }
    }

    @Test("thousands of arrivals in a row, each before an id in A's order, more than the lookup holds back at once")
    func manyArrivalsInARow() throws {
        // Every other id of B is new and followed by A's next id: the lookup probes for the new
        // ones later, in batches of at most `DeferredIndices.capacity`. A repeat of an A id among
        // them must still be found.
        let count = 3 * HashedIDTable.DeferredIndices.capacity
        for ids in [(0..<count).map { $0 &* -0x61C8_8646_80B5_83EB }, Array(0..<count)] {
            let a = ids.map(String.init)
            var b: [String] = []
            for (k, id) in a.enumerated() { b += ["new-\(k)", id] }
            let changeset = try StagedDiff.changeset(from: Shape([("s", a)]), to: Shape([("s", b)]))
            #expect(changeset.stages == [Stage(items: ItemChanges(inserted: (0..<count).map { path(0, 2 * $0) }))])
            let intIDs = try StagedDiff.changeset(from: SnapshotShape(sections: ["s"], items: [ids]),
                                                  to: SnapshotShape(sections: ["s"], items: [b.map { $0.hasPrefix("new-") ? -1 - Int($0.dropFirst(4))! : Int($0)! }]))
            #expect(intIDs == changeset)
            b[b.count - 2] = a[5]
            #expect(throws: DuplicateIDError(sections: [], items: [a[5]])) {
                try StagedDiff.changeset(from: Shape([("s", a)]), to: Shape([("s", b)]))
            }
        }
    }

    @Test("catalogues: content changes become reloads, revisions are carried")
    func catalogues() throws {
        var a = Catalog(name: "shelf", revision: 3, sections: [
            Section(id: "top", kind: .bookshelf, title: "Top", items: [
                Item(id: "b1", content: .book(Book(title: "One", cover: "1"))),
                Item(id: "b2", content: .book(Book(title: "Two", cover: "2"))),
            ]),
        ])
        var b = a
        b.revision = 4
        b.sections[0].items[1].content = .book(Book(title: "Two, revised", cover: "2"))
        b.sections[0].title = "Favourites"
        let changeset = try Changeset(from: a, to: b)
        #expect(changeset.fromRevision == 3 && changeset.toRevision == 4)
        #expect(changeset.violations(from: a, to: b).isEmpty)
        #expect(changeset.stages.flatMap(\.sections.reloaded) == [0])
        a.sections[0].items.append(a.sections[0].items[0])
        #expect(throws: DuplicateIDError.self) { try Changeset(from: a, to: b) }
    }
}
