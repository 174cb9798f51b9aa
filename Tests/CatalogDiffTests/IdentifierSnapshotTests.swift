import CatalogDiff
import CatalogModel
import CatalogTestSupport
import Testing

/// The diffable data source's side: the snapshot of ids, the items to reconfigure and the move a
/// drag made, each checked against the editor (the store's own rules) on random catalogues.
@Suite struct IdentifierSnapshotTests {
    /// A drag that moved one item: the operation found from the two snapshots, applied by the
    /// editor, gives the order the drag showed — for every item and every destination with room.
    @Test(arguments: 0..<4)
    func theMoveADragMadeIsFoundAndTheEditorMakesTheSameOrder(batch: Int) throws {
        var random = RandomEdits(seed: UInt64(900 + batch))
        var checked = 0
        for _ in 0..<200 {
            let catalog = random.catalog()
            let before = IdentifierSnapshot(catalog)
            for (s, section) in catalog.sections.enumerated() {
                for (i, item) in section.items.enumerated() {
                    let source = ItemPath(section: s, item: i)
                    for (t, target) in catalog.sections.enumerated() {
                        let slots = t == s ? target.items.count : target.items.count + 1
                        for index in 0..<slots {
                            let proposed = ItemPath(section: t, item: index)
                            // What the drag shows: the item out of its place and into the proposed one.
                            var shown = before
                            shown.sections[s].items.remove(at: i)
                            shown.sections[t].items.insert(item.id, at: index)
                            let operation = before.move(to: shown)
                            if shown == before {
                                #expect(operation == nil)
                                continue
                            }
                            let allowed = catalog.moveTarget(from: source, current: source, proposed: proposed) == proposed
                            guard let operation else {
                                Issue.record("no move found for \(item.id) to \(proposed): \(before) → \(shown)")
                                continue
                            }
                            // The store's rules: the editor refuses exactly what the drag may not propose.
                            do {
                                let moved = try catalog.applying(Batch(operations: [operation]))
                                #expect(allowed, "\(operation) was applied though a drag may not propose it")
                                #expect(IdentifierSnapshot(moved) == shown, "\(operation)")
                                checked += 1
                            } catch {
                                #expect(!allowed, "\(operation) refused: \(error)")
                            }
                        }
                    }
                }
            }
        }
        #expect(checked > 1_000)
    }

    @Test func whatIsNotOneMoveIsNotTakenForOne() {
        let before = IdentifierSnapshot(sections: [.init(id: "a", items: ["1", "2", "3"]), .init(id: "b", items: ["4"])])
        func after(_ a: [String], _ b: [String]) -> IdentifierSnapshot {
            IdentifierSnapshot(sections: [.init(id: "a", items: a), .init(id: "b", items: b)])
        }
        #expect(before.move(to: before) == nil)
        #expect(before.move(to: after(["3", "2", "1"], ["4"])) == nil, "two moves")
        #expect(before.move(to: after(["1", "2"], ["4"])) == nil, "a deletion")
        #expect(before.move(to: after(["1", "2", "3", "5"], ["4"])) == nil, "a new item")
        #expect(before.move(to: IdentifierSnapshot(sections: [.init(id: "b", items: ["4"]), .init(id: "a", items: ["1", "2", "3"])])) == nil,
                "sections reordered")
        // The same flat order with an item across the boundary is a move between sections.
        #expect(before.move(to: after(["1", "2"], ["3", "4"])) == .moveItem(id: "3", toSection: "b", index: 0))
        #expect(before.move(to: after(["2", "3", "1"], ["4"])) == .moveItem(id: "1", toSection: "a", index: 2))
        #expect(before.move(to: after(["4", "1", "2", "3"], [])) == .moveItem(id: "4", toSection: "a", index: 0))
    }

    @Test func aFullShelfIsNeverProposedAndAnotherKindNeither() {
        let book = { (id: String) in Item(id: id, content: .book(Book(title: id, cover: "\(id).png"))) }
        let catalog = Catalog(name: "shelves", revision: 1, sections: [
            Section(id: "full", kind: .bookshelf, capacity: 2, items: [book("a"), book("b")]),
            Section(id: "room", kind: .bookshelf, capacity: 3, items: [book("c")]),
            Section(id: "icons", kind: .icons, capacity: nil, items: []),
        ])
        let fromRoom = ItemPath(section: 1, item: 0), stay = ItemPath(section: 1, item: 0)
        #expect(catalog.moveTarget(from: fromRoom, current: stay, proposed: ItemPath(section: 0, item: 1)) == stay, "full")
        #expect(catalog.moveTarget(from: fromRoom, current: stay, proposed: ItemPath(section: 2, item: 0)) == stay, "icons hold no books")
        let fromFull = ItemPath(section: 0, item: 0)
        #expect(catalog.moveTarget(from: fromFull, current: fromFull, proposed: ItemPath(section: 0, item: 1)) == ItemPath(section: 0, item: 1),
                "within its own full shelf")
        #expect(catalog.moveTarget(from: fromFull, current: fromFull, proposed: ItemPath(section: 1, item: 1)) == ItemPath(section: 1, item: 1))
    }

    @Test func theItemsToReconfigureAreThoseWhoseContentChanged() {
        var random = RandomEdits(seed: 77)
        for _ in 0..<200 {
            let old = random.catalog()
            var new = old
            var expected: Set<String> = []
            for s in new.sections.indices {
                for i in new.sections[s].items.indices where random.chance(30) {
                    let retitled = random.chance(50)
                    if retitled {
                        new.sections[s].items[i].content = .book(Book(title: "new \(i)", cover: "n.png"))
                        expected.insert(new.sections[s].items[i].id)
                    } else {
                        new.sections[s].items[i].id += "-new"   // another item: inserted, not reconfigured
                    }
                }
                new.sections[s].items.shuffle(using: &random.random)
            }
            // The slow reference: by id, across the whole catalogue.
            let reference = new.sections.flatMap(\.items).filter { item in
                old.sections.flatMap(\.items).contains { $0.id == item.id && $0.content != item.content }
            }.map(\.id)
            let found = new.itemsWithNewContent(since: old)
            #expect(found == reference)
            #expect(Set(found) == expected)
        }
    }
}
