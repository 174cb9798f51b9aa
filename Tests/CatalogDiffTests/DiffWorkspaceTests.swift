import CatalogModel
import Testing
@testable import CatalogDiff

/// A workspace changes where a diff's scratch memory comes from, never its result.
@Suite("Diff workspace")
struct DiffWorkspaceTests {
    typealias Shape = SnapshotShape<Int, Int>

    /// A flat or sectioned pair of `count` ids with deletes, inserts and moves; with `disjoint`,
    /// B shares no id with A (the id table must grow while B is entered). The new ids are spread
    /// over a million values (a hash table), or with `narrow` kept close to A's (a dense table).
    static func largePair(count: Int, sections: Int, disjoint: Bool, narrow: Bool = false,
                          _ random: inout SplitMix64) -> (Shape, Shape) {
        var ids = Array(0..<count)
        ids.shuffle(using: &random)
        func shape(_ ids: [Int]) -> Shape {
            let per = max(1, (ids.count + sections - 1) / sections)
            let chunks = (0..<sections).map { s in Array(ids[min(s * per, ids.count)..<min((s + 1) * per, ids.count)]) }
            return Shape(sections: Array(0..<sections), items: chunks)
        }
        var other = disjoint ? ids.map { $0 + count } : ids.filter { _ in random.next() % 10 != 0 }
        let newIDs = narrow ? (count, UInt64(count / 4 + 1)) : (count * 2, UInt64(1_000_000))
        for _ in 0..<count / 20 { other.insert(newIDs.0 + Int(random.next() % newIDs.1), at: Int(random.next() % UInt64(other.count + 1))) }
        for _ in 0..<count / 100 where other.count > 1 { other.swapAt(Int(random.next() % UInt64(other.count)), Int(random.next() % UInt64(other.count))) }
        var seen = Set<Int>()
        return (shape(ids), shape(other.filter { seen.insert($0).inserted }))
    }

    @Test("one workspace through 3,000 diffs of every size and shape gives the changesets fresh memory gives")
    func sameResults() throws {
        var random = SplitMix64(seed: 0x5C2A_7C8)
        let workspace = DiffWorkspace()
        for n in 0..<3_000 {
            let (a, b, sections, items): (Shape, Shape, Set<Int>, Set<Int>)
            if n % 100 == 0 {
                // Large pairs now and then, so the workspace grows, and later diffs run in
                // memory larger than they need (its old contents must not leak into them).
                let count = [20_000, 3_000, 50_000, 500][n / 100 % 4]
                (a, b) = Self.largePair(count: count, sections: n % 200 == 0 ? 1 : 37, disjoint: n % 300 == 0,
                                        narrow: n % 300 == 100, &random)
                (sections, items) = ([], Set(a.items.joined().prefix(200)))
            } else {
                // Ids in a narrow range (a dense table) and spread out (a hash table), in turn.
                let generated = DiffPropertyTests.randomPair(&random)
                let pair = n % 2 == 0 ? generated : DiffPropertyTests.spread(generated)
                (a, b, sections, items) = (pair.a, pair.b, pair.updatedSections, pair.updatedItems)
            }
            // In fresh memory, in the one workspace, and through the shared ones (no workspace).
            let plain = try StagedDiff.changeset(from: a, to: b, updatedSections: sections, updatedItems: items, workspace: DiffWorkspace())
            let reused = try StagedDiff.changeset(from: a, to: b, updatedSections: sections, updatedItems: items, workspace: workspace)
            let shared = try StagedDiff.changeset(from: a, to: b, updatedSections: sections, updatedItems: items)
            if plain != reused || plain != shared {
                Issue.record("diff \(n): in fresh memory \(plain), with a workspace \(reused), through the shared ones \(shared)")
                return
            }
        }
        #expect(workspace.retainedBytes >= 50_000 * 4)
    }

    @Test("a diff that throws leaves the workspace usable; string ids that fall back to the standard hash too")
    func errorsAndFallback() throws {
        let workspace = DiffWorkspace()
        let a = SnapshotShape(sections: ["s"], items: [["a", "b", "c"]])
        let repeated = SnapshotShape(sections: ["s"], items: [["a", "b", "a"]])
        #expect(throws: DuplicateIDError.self) { try StagedDiff.changeset(from: a, to: repeated, workspace: workspace) }
        // "K" and the Kelvin sign are one id to Swift: the ASCII hash gives up, the diff starts again.
        let kelvin = SnapshotShape(sections: ["s"], items: [["c", "\u{212A}", "b", "a"]])
        let withK = SnapshotShape(sections: ["s"], items: [["K", "a", "c"]])
        for (from, to) in [(a, kelvin), (kelvin, withK), (withK, a)] {
            #expect(try StagedDiff.changeset(from: from, to: to, workspace: workspace) == StagedDiff.changeset(from: from, to: to))
        }
    }

    @Test("release() frees the memory kept between diffs; the next diff takes it again")
    func release() throws {
        var random = SplitMix64(seed: 9)
        let (a, b) = Self.largePair(count: 10_000, sections: 3, disjoint: false, &random)
        let workspace = DiffWorkspace()
        #expect(workspace.retainedBytes == 0)
        let first = try StagedDiff.changeset(from: a, to: b, workspace: workspace)
        let kept = workspace.retainedBytes
        // At least the table (16k slots of 4 bytes for 10k ids) and the two position maps (B
        // keeps over 9,000 ids), with the sections of every few positions of both snapshots.
        #expect(kept >= 16_384 * 4 + (10_000 + 9_000) * 4)
        #expect(try StagedDiff.changeset(from: a, to: b, workspace: workspace) == first)
        #expect(workspace.retainedBytes == kept)
        workspace.release()
        #expect(workspace.retainedBytes == 0)
        #expect(try StagedDiff.changeset(from: a, to: b, workspace: workspace) == first)
        // Taken again, not necessarily to the byte: on Linux an array's capacity is what
        // `malloc_usable_size` reports, and a fresh block may be a few bytes larger than the last
        // one (CI once saw 277,784 against 277,768). Allow a page per buffer.
        let retaken = workspace.retainedBytes
        #expect(retaken >= 16_384 * 4 + (10_000 + 9_000) * 4)
        #expect(abs(retaken - kept) <= 12 * 4_096, "kept \(kept) bytes before release, \(retaken) after")
    }

    @Test("catalogue changesets take a workspace too")
    func catalogues() throws {
        let old = Catalog.generated(name: "c", items: 2_000, sections: 10, kind: .bookshelf, seed: 3)
        var new = old
        new.sections[2].items.removeFirst(5)
        new.sections[4].items.swapAt(0, 7)
        if case .book(var book) = new.sections[4].items[1].content {
            book.title = "Renamed"
            new.sections[4].items[1].content = .book(book)
        }
        #expect(new.sections[4].items[1] != old.sections[4].items[1])
        let workspace = DiffWorkspace()
        #expect(try Changeset(from: old, to: new, workspace: workspace) == Changeset(from: old, to: new))
        #expect(try Changeset(from: new, to: old, workspace: workspace) == Changeset(from: new, to: old))
    }
}
