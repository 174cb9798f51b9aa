import CatalogDiff
import CatalogModel
import Testing
@testable import CatalogStore

/// An update between two revisions diffs only the sections they do not share: on random
/// catalogues with a few sections edited (items moved between them, deleted, inserted, changed;
/// sections retitled; now and then the section order changed, which takes the whole diff), the
/// changeset is exactly the whole catalogues' diff — with content, or of shapes alone.
@Suite struct SharedSectionsChangesetTests {
    @Test(arguments: 0..<4)
    func leavingSharedSectionsOutChangesNothing(batch: Int) throws {
        var random = SplitMix64(seed: UInt64(batch) &* 0x9E37_79B9 &+ 5)
        func pick(_ n: Int) -> Int { n <= 0 ? 0 : Int(random.next() % UInt64(n)) }
        var leftOut = 0
        for round in 0..<200 {
            var next = 0
            func book() -> Item {
                next += 1
                return Item(id: "b\(next)", content: .book(Book(title: "T\(pick(3))", cover: "c\(pick(2))")))
            }
            let a = Catalog(name: "c", revision: 3, sections: (0..<(1 + pick(8))).map { s in
                Section(id: "s\(s)", kind: .bookshelf, title: pick(2) == 0 ? nil : "Shelf", items: (0..<pick(6)).map { _ in book() })
            })
            var b = a
            b.revision = 3 + 1 + pick(3)
            let touched = (0..<(1 + pick(2))).map { _ in pick(a.sections.count) }
            for _ in 0..<(1 + pick(4)) {
                let (s, t) = (touched[pick(touched.count)], touched[pick(touched.count)])
                switch pick(5) {
                case 0 where !b.sections[s].items.isEmpty:
                    let item = b.sections[s].items.remove(at: pick(b.sections[s].items.count))
                    b.sections[t].items.insert(item, at: pick(b.sections[t].items.count + 1))
                case 1 where !b.sections[s].items.isEmpty:
                    b.sections[s].items.remove(at: pick(b.sections[s].items.count))
                case 2:
                    b.sections[s].items.insert(book(), at: pick(b.sections[s].items.count + 1))
                case 3 where !b.sections[s].items.isEmpty:
                    b.sections[s].items[pick(b.sections[s].items.count)].content = .book(Book(title: "New", cover: "n"))
                default:
                    b.sections[s].title = b.sections[s].title == nil ? "Renamed" : nil
                }
            }
            if round % 10 == 0, b.sections.count > 1 { b.sections.swapAt(0, b.sections.count - 1) }
            if let shared = a.sectionsNotShared(with: b), shared.count < a.sections.count { leftOut += 1 }

            var whole = try Changeset(from: a, to: b)
            (whole.fromRevision, whole.toRevision) = (a.revision, b.revision)
            #expect(try StoreRules.changeset(from: a, to: b, restoredContent: true) == whole, "\(a)\n→\n\(b)")
            var shapes = try StagedDiff.changeset(from: a.shape, to: b.shape)
            (shapes.fromRevision, shapes.toRevision) = (a.revision, b.revision)
            #expect(try StoreRules.changeset(from: a, to: b, restoredContent: false) == shapes, "\(a)\n→\n\(b)")
        }
        #expect(leftOut > 100)
    }
}
