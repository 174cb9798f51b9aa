import CatalogModel
import Testing
@testable import CatalogDiff

/// The catalogue-level diff compares content inside its own id matching; on random catalogues
/// with every kind of field changed it must make exactly the changeset that the id-level diff
/// makes when told the changes ``Catalog/contentChanges(since:)`` finds — the plain statement
/// of the rule, kept as the slow reference.
@Suite("Catalogue diff properties")
struct CatalogDiffPropertyTests {
    @Test(arguments: 0..<8)
    func contentIsComparedExactlyAsTheReferenceFindsIt(batch: Int) throws {
        var random = SplitMix64(seed: UInt64(batch) &* 0x9E37_79B9 &+ 17)
        for _ in 0..<150 {
            let a = Self.randomCatalog(&random)
            let b = Self.edited(a, &random)
            let changes = b.contentChanges(since: a)
            let reference = try StagedDiff.changeset(from: a.shape, to: b.shape, updatedSections: changes.sections,
                                                     updatedItems: changes.items)
            let changeset = try Changeset(from: a, to: b)
            #expect(changeset.stages == reference.stages, "\(a)\n→\n\(b)")
            #expect(changeset.violations(from: a, to: b).isEmpty)
        }
    }

    /// Ids the diff reads in place as they are in real catalogues: long enough to live on the
    /// heap, not ASCII, and spelled differently on the two sides where Swift's strings are equal
    /// ("é" precomposed in `a`, "e" and a combining accent in `b`). The changeset is the one the
    /// id-level diff makes from `String` shapes, and a repeated id is still found when its two
    /// spellings differ.
    @Test(arguments: 0..<4)
    func idsReadInPlaceMatchAsStringsDo(batch: Int) throws {
        func respelled(_ catalog: Catalog, accent: String) -> Catalog {
            var catalog = catalog
            for s in catalog.sections.indices {
                for i in catalog.sections[s].items.indices {
                    catalog.sections[s].items[i].id = "caf\(accent)-\(catalog.sections[s].items[i].id)-an-id-of-more-than-15-bytes"
                }
            }
            return catalog
        }
        var random = SplitMix64(seed: UInt64(batch) &* 0x51_7CC1 &+ 3)
        for _ in 0..<100 {
            let plain = Self.randomCatalog(&random)
            let a = respelled(plain, accent: "\u{E9}")
            let b = respelled(Self.edited(plain, &random), accent: "e\u{301}")
            let changes = b.contentChanges(since: a)
            let reference = try StagedDiff.changeset(from: a.shape, to: b.shape, updatedSections: changes.sections,
                                                     updatedItems: changes.items)
            #expect(try Changeset(from: a, to: b).stages == reference.stages, "\(a)\n→\n\(b)")
        }
        let repeated = Catalog(name: "c", revision: 0, sections: [Section(id: "s", kind: .videos, items: [
            Item(id: "caf\u{E9}", content: .icon(Icon(name: "n", icon: "i"))),
            Item(id: "cafe\u{301}", content: .icon(Icon(name: "n", icon: "i"))),
        ])])
        let next = Catalog(name: "c", revision: 1, sections: [Section(id: "s", kind: .videos)])
        #expect(throws: DuplicateIDError(sections: [], items: ["cafe\u{301}"])) { try Changeset(from: repeated, to: next) }
    }

    /// A catalogue of 0–5 sections of every kind, 0–12 items each, from small pools of ids,
    /// titles and covers (so that items repeat one another's content).
    static func randomCatalog(_ random: inout SplitMix64) -> Catalog {
        func pick(_ n: Int) -> Int { n <= 0 ? 0 : Int(random.next() % UInt64(n)) }
        var sections: [Section] = []
        var itemPool = Array(0..<60).shuffled(using: &random)[...]
        for s in 0..<pick(6) {
            let kind = SectionKind.allCases[pick(SectionKind.allCases.count)]
            var items: [Item] = []
            for _ in 0..<pick(13) {
                guard let n = itemPool.popFirst() else { break }
                items.append(randomItem(id: "i\(n)", &random))
            }
            sections.append(Section(id: "s\(s)", kind: kind, title: pick(3) == 0 ? nil : "Section \(pick(3))",
                                    capacity: nil, items: items))
        }
        return Catalog(name: "c", revision: pick(4), sections: sections)
    }

    static func randomItem(id: String, _ random: inout SplitMix64) -> Item {
        func pick(_ n: Int) -> Int { Int(random.next() % UInt64(n)) }
        let content: ItemContent = switch pick(3) {
        case 0: .video(Video(title: "T\(pick(3))", cover: "c\(pick(3))", playCount: pick(3), likeCount: pick(3),
                             status: VideoStatus.allCases[pick(VideoStatus.allCases.count)],
                             statusText: pick(2) == 0 ? nil : "s\(pick(2))"))
        case 1: .book(Book(title: "T\(pick(3))", cover: "c\(pick(3))", author: pick(2) == 0 ? nil : "a\(pick(2))"))
        default: .icon(Icon(name: "n\(pick(3))", icon: "i\(pick(3))"))
        }
        return Item(id: id, content: content, size: pick(3) == 0 ? nil : Size(width: Double(pick(3)), height: 10))
    }

    /// `a` with each item's fields changed now and then (every field of its kind, its size, or
    /// its kind), items moved, deleted and inserted, and sections retitled, moved or dropped.
    static func edited(_ a: Catalog, _ random: inout SplitMix64) -> Catalog {
        func pick(_ n: Int) -> Int { n <= 0 ? 0 : Int(random.next() % UInt64(n)) }
        var b = a
        b.revision += 1
        for s in b.sections.indices {
            for i in b.sections[s].items.indices where pick(4) == 0 {
                var item = b.sections[s].items[i]
                switch pick(4) {
                case 0: item.size = item.size == nil ? Size(width: 1, height: 1) : nil
                case 1: item = randomItem(id: item.id, &random)
                default:
                    let fields = ItemField.content(of: item.kind)
                    let field = fields[pick(fields.count)]
                    let value: ItemFieldValue? = switch field.contentType {
                    case .count: .count(pick(4))
                    case .status: .text(VideoStatus.allCases[pick(VideoStatus.allCases.count)].rawValue)
                    case .optionalText: pick(2) == 0 ? nil : .text("x\(pick(2))")
                    default: .text("x\(pick(2))")
                    }
                    try? item.content.set(field, to: value)
                }
                b.sections[s].items[i] = item
            }
            if pick(5) == 0 { b.sections[s].title = b.sections[s].title == nil ? "New" : nil }
            if pick(8) == 0 { b.sections[s].capacity = 20 }
        }
        for _ in 0..<pick(5) {
            guard !b.sections.isEmpty else { break }
            let s = pick(b.sections.count)
            guard !b.sections[s].items.isEmpty else { continue }
            let item = b.sections[s].items.remove(at: pick(b.sections[s].items.count))
            if pick(3) == 0 { continue }  // deleted
            let t = pick(b.sections.count)
            b.sections[t].items.insert(item, at: pick(b.sections[t].items.count + 1))
        }
        if !b.sections.isEmpty, pick(3) == 0 {
            let s = pick(b.sections.count)
            b.sections[s].items.insert(randomItem(id: "new\(pick(1000))", &random), at: 0)
            if b.sections.flatMap(\.items).map(\.id).count != Set(b.sections.flatMap(\.items).map(\.id)).count {
                b.sections[s].items.removeFirst()
            }
        }
        if b.sections.count > 1, pick(3) == 0 { b.sections.swapAt(0, b.sections.count - 1) }
        if !b.sections.isEmpty, pick(6) == 0 { b.sections.remove(at: pick(b.sections.count)) }
        return b
    }
}
