import CatalogModel

/// Random catalogues of shelves and random operations on them — valid and invalid mixed — for
/// the editing property tests of the model and of the store.
public struct RandomEdits {
    package var random: SplitMix64
    var nextID = 0

    public init(seed: UInt64) {
        random = SplitMix64(seed: seed)
    }

    public mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
    public mutating func chance(_ percent: Int) -> Bool { int(1...100) <= percent }

    public mutating func book() -> Item {
        nextID += 1
        return Item(id: "n\(nextID)", content: .book(Book(title: "New \(nextID)", cover: "c\(nextID)")))
    }

    /// 1–6 shelves (capacities 1–5, some unbounded) and sometimes an icons section.
    public mutating func catalog() -> Catalog {
        var sections: [Section] = []
        var n = 0
        for s in 0..<int(1...6) {
            let capacity: Int? = chance(15) ? nil : int(1...5)
            let count = int(0...(capacity ?? 6))
            var section = Section(id: "s\(s)", kind: .bookshelf, title: "Shelf \(s)", capacity: capacity,
                                  items: (0..<count).map { _ in
                                      n += 1
                                      return Item(id: "b\(n)", content: .book(Book(title: "Book \(n)", cover: "\(n % 7)")))
                                  })
            section.capacity = capacity   // nil: unbounded (the initialiser would give a shelf 4)
            sections.append(section)
        }
        if chance(30) {
            sections.insert(Section(id: "icons", kind: .icons, items: [Item(id: "i1", content: .icon(Icon(name: "Home", icon: "house")))]),
                            at: int(0...sections.count))
        }
        return Catalog(name: "shelf", revision: int(0...3), sections: sections)
    }

    /// An operation on `catalog`: mostly sensible, sometimes with an unknown id, a bad index or a
    /// full shelf.
    public mutating func operation(on catalog: Catalog) -> BatchOperation {
        let sectionIDs = catalog.sections.map(\.id) + ["missing"]
        let itemIDs = catalog.sections.flatMap { $0.items.map(\.id) } + ["ghost"]
        func pick<T>(_ values: [T]) -> T { values[int(0...values.count - 1)] }
        func index(in sectionID: String) -> Int {
            let count = catalog.sections.first { $0.id == sectionID }?.items.count ?? 0
            return chance(90) ? int(0...count) : count + int(1...3)
        }
        let policies: [MovePolicy] = [.reject, .displace, .swap]
        switch int(0...9) {
        case 0...3:
            let target = pick(sectionIDs)
            return .moveItem(id: pick(itemIDs), toSection: target, index: index(in: target), policy: pick(policies))
        case 4:
            let target = pick(sectionIDs)
            return .insertItem(section: target, index: index(in: target), item: chance(90) ? book() : Item(id: pick(itemIDs), content: .book(Book(title: "dup", cover: "d"))))
        case 5:
            return .deleteItem(id: pick(itemIDs))
        case 6:
            return .updateItem(id: pick(itemIDs), fields: chance(80) ? ItemFields(title: "Retitled \(int(0...9))") : ItemFields(playCount: 3))
        case 7:
            let index = chance(90) ? int(0...catalog.sections.count) : catalog.sections.count + 2
            nextID += 1
            return .insertSection(index: index, section: Section(id: chance(90) ? "t\(nextID)" : pick(sectionIDs), kind: .bookshelf,
                                                                 capacity: int(1...4), items: chance(50) ? [book()] : []))
        case 8:
            return chance(50) ? .deleteSection(id: pick(sectionIDs))
                : .moveSection(id: pick(sectionIDs), index: int(0...catalog.sections.count))
        default:
            return .updateSection(id: pick(sectionIDs), fields: SectionFields(title: .some("T\(int(0...9))"), capacity: chance(50) ? .some(int(1...5)) : nil))
        }
    }
}
