import CatalogModel
import Foundation
import GRDB
import Testing
@testable import CatalogStore

/// Item positions are order keys with gaps: the planner keeps what is in order, places the rest
/// between neighbours, and gives a section fresh keys when a gap runs out; the store writes only
/// the rows whose key changes.
@Suite("Order keys")
struct OrderKeyTests {
    let s = OrderKeys.spacing
    let o = OrderKeys.origin

    @Test func keysBetweenNeighbours() {
        #expect(OrderKeys.keys(count: 1, after: nil, before: nil) == [o])
        #expect(OrderKeys.keys(count: 2, after: nil, before: nil) == [o, o + s])
        // Before the first item: full steps down while they stay positive, then halving towards 0.
        #expect(OrderKeys.keys(count: 2, after: nil, before: o) == [o - 2 * s, o - s])
        #expect(OrderKeys.keys(count: 1, after: nil, before: 2 * s) == [s])
        #expect(OrderKeys.keys(count: 2, after: s, before: nil) == [2 * s, 3 * s])
        #expect(OrderKeys.keys(count: 1, after: nil, before: s) == [s / 2])
        #expect(OrderKeys.keys(count: 3, after: 10, before: 14) == [11, 12, 13])
        #expect(OrderKeys.keys(count: 4, after: 10, before: 14) == nil)
        #expect(OrderKeys.keys(count: 1, after: 10, before: 11) == nil)
        #expect(OrderKeys.keys(count: 1, after: Int64.max - 5, before: nil) == nil)
        #expect(OrderKeys.keys(count: 0, after: 3, before: 3) == [])
    }

    @Test func planKeepsWhatIsInOrder() {
        // Nothing moved: every key stays.
        #expect(OrderKeys.plan([s, 2 * s, 3 * s]) == [s, 2 * s, 3 * s])
        // The last item moved to the front: only it gets a new key, below the first one.
        #expect(OrderKeys.plan([3 * s, s, 2 * s]) == [s / 2, s, 2 * s])
        // A newcomer between two items.
        #expect(OrderKeys.plan([s, nil, 2 * s]) == [s, s + s / 2, 2 * s])
        // No room between 10 and 11: the whole section gets fresh keys.
        #expect(OrderKeys.plan([10, nil, 11]) == [o, o + s, o + 2 * s])
        // Fresh keys leave as much room before the first item as after the last.
        #expect(OrderKeys.plan([o + 2 * s, o, o + s]) == [o - s, o, o + s])
        #expect(OrderKeys.plan([o + s, o + 2 * s, o]) == [o + s, o + 2 * s, o + 3 * s])
    }

    @Test("plans for random orders are strictly increasing and keep a longest run of keys in order")
    func randomPlans() {
        var random = SplitMix64(seed: 11)
        for _ in 0..<2_000 {
            let count = Int.random(in: 0...30, using: &random)
            var keys = (0..<count).map { _ in Int64.random(in: 1...200, using: &random) }
            keys = Array(Set(keys)).shuffled(using: &random)
            let current: [Int64?] = keys.map { Int.random(in: 0..<5, using: &random) == 0 ? nil : $0 }
            let plan = OrderKeys.plan(current)
            #expect(plan.count == current.count)
            #expect(zip(plan, plan.dropFirst()).allSatisfy { $0 < $1 }, "\(current) -> \(plan)")
            #expect(plan.allSatisfy { $0 > 0 })
            // Unless the section was renumbered, exactly a longest increasing run kept its keys.
            let kept = zip(current, plan).filter { $0.0 == $0.1 }.count
            let renumbered = plan == (0..<plan.count).map(OrderKeys.key(atIndex:))
            if !renumbered {
                #expect(kept == OrderKeys.longestIncreasingRun(current).count)
                #expect(kept == Self.slowLongestIncreasing(current.compactMap { $0 }))
            }
        }
    }

    /// O(n²) longest strictly increasing subsequence, to check the fast one.
    static func slowLongestIncreasing(_ values: [Int64]) -> Int {
        var best = [Int](repeating: 1, count: values.count)
        for i in values.indices {
            for j in 0..<i where values[j] < values[i] { best[i] = max(best[i], best[j] + 1) }
        }
        return best.max() ?? 0
    }

    /// Dragging a book to the top (or the end) of a shelf is the commonest move: it never runs a
    /// gap out, so no other book's key ever changes — here 200 books, each put first on the
    /// other shelf, one after another.
    @Test func booksPutFirstOrLastNeverRenumberAShelf() throws {
        let store = try CatalogStore.inMemory()
        let books = (0..<200).map { Item(id: "b\($0)", content: .book(Book(title: "B\($0)", cover: "c"))) }
        var model = Catalog(name: "shelf", sections: [
            Section(id: "a", kind: .bookshelf, capacity: 1_000, items: Array(books[..<100])),
            Section(id: "b", kind: .bookshelf, capacity: 1_000, items: Array(books[100...])),
        ])
        model.revision = try store.replace(model).revision
        func keys() throws -> [String: Int64] {
            try store.writer.read { db in
                Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT id, position FROM item").map { ($0[0], $0[1]) })
            }
        }
        for n in 0..<200 {
            let id = "b\((n * 37) % 200)"
            let target = model.sections[0].items.contains { $0.id == id } ? "b" : "a"
            let index = n % 3 == 2 ? nil : 0   // first, first, last
            let before = try keys()
            try store.move(item: id, toSection: target, index: index, in: "shelf")
            model = try model.applying(Batch(operations: [.moveItem(id: id, toSection: target, index: index, policy: .reject)]))
            let after = try keys()
            #expect(after.filter { $0.value != before[$0.key] }.map(\.key) == [id], "move \(n)")
        }
        #expect(try store.catalog(named: "shelf").sections.map { $0.items.map(\.id) } == model.sections.map { $0.items.map(\.id) })
        try store.checkIntegrity()
    }

    /// Forty books dropped one after another into the same place: the gap runs out (about 32
    /// fit) and the shelf gets fresh keys, through the quick path and the editor alike; the
    /// order is always the one the model says, and a move writes one row while the gap lasts.
    @Test func aGapThatRunsOutRenumbersTheShelf() throws {
        let store = try CatalogStore.inMemory()
        let books = (0..<42).map { Item(id: "b\($0)", content: .book(Book(title: "B\($0)", cover: "c"))) }
        var model = Catalog(name: "shelf", sections: [
            Section(id: "from", kind: .bookshelf, capacity: 100, items: Array(books[2...])),
            Section(id: "to", kind: .bookshelf, capacity: 100, items: Array(books[..<2])),
        ])
        model.revision = try store.replace(model).revision
        func keys(_ section: String) throws -> [Int64] {
            try store.writer.read { db in
                try Int64.fetchAll(db, sql: """
                    SELECT position FROM item WHERE section_pk = (SELECT pk FROM section WHERE id = ?) ORDER BY position
                    """, arguments: [section])
            }
        }
        var renumbered = false
        for n in 0..<40 {
            let id = "b\(n + 2)"
            let before = try keys("to")
            // Into the middle of the shelf, always between the same two first books.
            try store.move(item: id, toSection: "to", index: 1, in: "shelf")
            model = try model.applying(Batch(operations: [.moveItem(id: id, toSection: "to", index: 1, policy: .reject)]))
            #expect(try store.catalog(named: "shelf").sections.map { $0.items.map(\.id) } == model.sections.map { $0.items.map(\.id) })
            let after = try keys("to")
            #expect(zip(after, after.dropFirst()).allSatisfy { $0 < $1 })
            if after.first != before.first || Set(before).isSubset(of: Set(after)) == false {
                renumbered = true
                #expect(after == (0..<after.count).map(OrderKeys.key(atIndex:)))
            } else {
                // Only the new book's key is new.
                #expect(Set(after).subtracting(before).count == 1)
            }
        }
        #expect(renumbered, "forty books into one gap never ran it out")
        try store.checkIntegrity()
    }
}
