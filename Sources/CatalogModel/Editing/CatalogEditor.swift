/// Applies batch operations (docs/Batches-and-moves.md) and moves (docs/Batches-and-moves.md) to a catalogue read through a
/// ``CatalogSource``, checking every rule, and records what changed: the sections before and
/// after, and the section order when it changed.
///
/// It reads only what the operations need — the sections they name, the sections of the items
/// they name, the next shelves of a displacing move, the section order for section operations —
/// so the store can apply an edit of two shelves of a million-book catalogue by reading two shelves.
public struct CatalogEditor<Source: CatalogSource> {
    /// What the edit read from; a database source also remembers the rows it read.
    package private(set) var source: Source
    /// Sections as they were before the edit, with their positions: every section the edit read.
    package private(set) var originals: [String: (section: Section, position: Int)] = [:]
    /// The current version of every section the edit read or created (deleted ones removed).
    package private(set) var sections: [String: Section] = [:]
    /// Sections the edit created, and sections it deleted that existed before.
    package private(set) var inserted: Set<String> = []
    package private(set) var deleted: Set<String> = []
    /// The section order before and after, once a section operation needed it (nil before).
    package private(set) var orderBefore: [String]?
    package var order: [String]? { orderLoaded ? sectionOrder : nil }
    /// The section order now, once ``loadOrder()`` read it (empty before).
    private var sectionOrder: [String] = []
    private var orderLoaded = false
    /// For items of the sections read: which section holds them now.
    private var itemSections: [String: String] = [:]

    public init(source: Source) {
        self.source = source
    }

    public var revision: Int { source.revision }

    /// Applies `batch`: first its `baseRevision`, then each operation in order. On a throw the
    /// editor is left part-way: discard it (the store rolls the transaction back).
    public mutating func apply(_ batch: Batch) throws {
        if let base = batch.baseRevision, base != source.revision {
            throw BatchError(reason: .staleRevision(base: base, current: source.revision))
        }
        for (index, operation) in batch.operations.enumerated() {
            do {
                try apply(operation)
            } catch var error as BatchError {
                error.operation = index
                error.operationName = operation.name
                throw error
            }
        }
    }

    /// Applies one operation.
    public mutating func apply(_ operation: BatchOperation) throws {
        switch operation {
        case .insertItem(let sectionID, let index, let item):
            try insertItem(item, into: sectionID, at: index)
        case .deleteItem(let id):
            let (sectionID, index) = try locate(id)
            sections[sectionID]!.items.remove(at: index)
            itemSections[id] = nil
        case .updateItem(let id, let fields):
            let (sectionID, index) = try locate(id)
            sections[sectionID]!.items[index] = try Self.updated(sections[sectionID]!.items[index], with: fields)
        case .moveItem(let id, let toSection, let index, let policy):
            try moveItem(id, to: toSection, at: index, policy: policy)
        case .insertSection(let index, let section):
            try insertSection(section, at: index)
        case .deleteSection(let id):
            try loadOrder()
            guard let position = sectionOrder.firstIndex(of: id) else { throw BatchError(reason: .unknownSection(id)) }
            let section = try load(id)
            sectionOrder.remove(at: position)
            for item in section?.items ?? [] { itemSections[item.id] = nil }
            sections[id] = nil
            if inserted.remove(id) == nil { deleted.insert(id) }
        case .moveSection(let id, let index):
            try loadOrder()
            guard let position = sectionOrder.firstIndex(of: id) else { throw BatchError(reason: .unknownSection(id)) }
            guard index >= 0, index < sectionOrder.count else {
                throw BatchError(reason: .indexOutOfRange(index: index, count: sectionOrder.count, what: "the sections"))
            }
            sectionOrder.remove(at: position)
            sectionOrder.insert(id, at: index)
        case .updateSection(let id, let fields):
            guard var section = try load(id) else { throw BatchError(reason: .unknownSection(id)) }
            if let title = fields.title { section.title = title }
            if let capacity = fields.capacity {
                if let capacity {
                    guard Section.capacities.contains(capacity) else {
                        throw BatchError(reason: .invalidField("capacity", detail: "expected \(Section.capacityExpectation), found \(capacity)"))
                    }
                    guard capacity >= section.items.count else {
                        throw BatchError(reason: .capacityBelowCount(section: id, capacity: capacity, count: section.items.count))
                    }
                }
                section.capacity = capacity
            }
            sections[id] = section
        }
    }

    /// Takes `patch`'s versions of sections wholesale (a follower taking a server's change):
    /// sections its order leaves out are deleted, its sections replace those of the same id or
    /// are inserted, and the order becomes its order. Only the catalogue-wide rule is checked —
    /// each item in one place — since the patch comes from a catalogue that kept every rule.
    package mutating func apply(_ patch: SectionPatch) throws {
        // The items the replaced and removed sections held: accounted for wherever the patch puts them.
        var held = Set<String>()
        func release(_ section: Section?, _ id: String) {
            for item in section?.items ?? [] {
                held.insert(item.id)
                if itemSections[item.id] == id { itemSections[item.id] = nil }
            }
        }
        if let newOrder = patch.order {
            try loadOrder()
            let kept = Set(newOrder)
            for id in sectionOrder where !kept.contains(id) {
                release(try load(id), id)
                sections[id] = nil
                if inserted.remove(id) == nil { deleted.insert(id) }
            }
            sectionOrder = newOrder
        }
        for section in patch.sections {
            if let old = try load(section.id) {
                release(old, section.id)
            } else {
                guard patch.order != nil else { throw BatchError(reason: .unknownSection(section.id)) }
                inserted.insert(section.id)
            }
            sections[section.id] = section
        }
        // Every item once: not twice in the patch, and — for an item new to these sections — not
        // still held by a section the patch leaves alone.
        var placed = Set<String>()
        for section in patch.sections {
            for item in section.items {
                let elsewhere = held.contains(item.id) ? nil : try sectionOf(item.id)
                guard placed.insert(item.id).inserted, elsewhere == nil else { throw BatchError(reason: .duplicateItemID(item.id)) }
                itemSections[item.id] = section.id
            }
        }
    }

    // MARK: Items

    private mutating func insertItem(_ item: Item, into sectionID: String, at index: Int) throws {
        guard var section = try load(sectionID) else { throw BatchError(reason: .unknownSection(sectionID)) }
        try Self.check(item)
        guard item.kind == section.kind.itemKind else {
            throw BatchError(reason: .kindMismatch(item: item.id, kind: item.kind, section: sectionID, sectionKind: section.kind))
        }
        guard index >= 0, index <= section.items.count else {
            throw BatchError(reason: .indexOutOfRange(index: index, count: section.items.count, what: "section \"\(sectionID)\""))
        }
        if let capacity = section.capacity, section.items.count >= capacity {
            throw BatchError(reason: .sectionFull(section: sectionID, capacity: capacity))
        }
        if try sectionOf(item.id) != nil { throw BatchError(reason: .duplicateItemID(item.id)) }
        section.items.insert(item, at: index)
        sections[sectionID] = section
        itemSections[item.id] = sectionID
    }

    private mutating func moveItem(_ id: String, to targetID: String, at requested: Int?, policy: MovePolicy) throws {
        let (sourceID, from) = try locate(id)
        guard var target = try load(targetID) else { throw BatchError(reason: .unknownSection(targetID)) }
        let item = sections[sourceID]!.items[from]
        switch try MoveDecision.decide(item: id, kind: item.kind, to: targetID, of: target.kind, count: target.items.count,
                                       capacity: target.capacity, sameSection: sourceID == targetID, at: requested, policy: policy) {
        case .within(let index):
            target.items.remove(at: from)
            target.items.insert(item, at: index)
            sections[targetID] = target
        case .swap(let index):
            // The book at the target index takes the moved book's old place.
            let other = target.items[index]
            let sourceKind = sections[sourceID]!.kind
            guard other.kind == sourceKind.itemKind else {
                throw BatchError(reason: .kindMismatch(item: other.id, kind: other.kind, section: sourceID, sectionKind: sourceKind))
            }
            target.items[index] = item
            sections[targetID] = target
            sections[sourceID]!.items[from] = other
            itemSections[id] = targetID
            itemSections[other.id] = sourceID
        case .insert(let index), .displace(let index):
            sections[sourceID]!.items.remove(at: from)
            target.items.insert(item, at: index)
            sections[targetID] = target
            itemSections[id] = targetID
            if target.capacity.map({ target.items.count > $0 }) ?? false { try displaceOverflow(from: targetID) }
        }
    }

    /// Pushes the last book of an overfull shelf to the start of the next shelf, cascading.
    private mutating func displaceOverflow(from start: String) throws {
        var current = start
        while let capacity = sections[current]!.capacity, sections[current]!.items.count > capacity {
            guard let nextID = try sectionID(after: current), var next = try load(nextID),
                  next.kind == sections[current]!.kind else {
                throw BatchError(reason: .noRoomToDisplace(section: current))
            }
            let overflow = sections[current]!.items.removeLast()
            next.items.insert(overflow, at: 0)
            sections[nextID] = next
            itemSections[overflow.id] = nextID
            current = nextID
        }
    }

    // MARK: Sections

    private mutating func insertSection(_ section: Section, at index: Int) throws {
        try loadOrder()
        guard index >= 0, index <= sectionOrder.count else {
            throw BatchError(reason: .indexOutOfRange(index: index, count: sectionOrder.count, what: "the sections"))
        }
        guard !section.id.isEmpty else { throw BatchError(reason: .invalidField("id", detail: "expected a non-empty string")) }
        if sectionOrder.contains(section.id) { throw BatchError(reason: .duplicateSectionID(section.id)) }
        if let capacity = section.capacity {
            guard Section.capacities.contains(capacity) else {
                        throw BatchError(reason: .invalidField("capacity", detail: "expected \(Section.capacityExpectation), found \(capacity)"))
                    }
            guard section.items.count <= capacity else {
                throw BatchError(reason: .capacityBelowCount(section: section.id, capacity: capacity, count: section.items.count))
            }
        }
        var seen = Set<String>()
        for item in section.items {
            try Self.check(item)
            guard item.kind == section.kind.itemKind else {
                throw BatchError(reason: .kindMismatch(item: item.id, kind: item.kind, section: section.id, sectionKind: section.kind))
            }
            guard seen.insert(item.id).inserted, try sectionOf(item.id) == nil else {
                throw BatchError(reason: .duplicateItemID(item.id))
            }
        }
        sectionOrder.insert(section.id, at: index)
        sections[section.id] = section
        inserted.insert(section.id)
        for item in section.items { itemSections[item.id] = section.id }
    }

    // MARK: Reading

    /// The current version of a section, read from the source the first time; `nil` when it does
    /// not exist (or the edit deleted it).
    private mutating func load(_ id: String) throws -> Section? {
        if let section = sections[id] { return section }
        if deleted.contains(id) || originals[id] != nil { return nil }
        guard let (section, position) = try source.section(id: id) else { return nil }
        remember(section, at: position)
        return section
    }

    private mutating func remember(_ section: Section, at position: Int) {
        originals[section.id] = (section, position)
        sections[section.id] = section
        for item in section.items where itemSections[item.id] == nil { itemSections[item.id] = section.id }
    }

    /// The id of the section holding item `id` now, or `nil` when there is no such item.
    private mutating func sectionOf(_ id: String) throws -> String? {
        if let sectionID = itemSections[id] { return sectionID }
        guard let sourceSection = try source.sectionID(ofItem: id) else { return nil }
        // Its section as the source has it; if the edit already read that section, the item
        // has left it (deleted, or moved where the editor would know it).
        if originals[sourceSection] != nil || deleted.contains(sourceSection) { return nil }
        guard try load(sourceSection) != nil else { return nil }
        return itemSections[id]
    }

    /// Where item `id` is now; throws ``BatchError/Reason/unknownItem(_:)`` when nowhere.
    private mutating func locate(_ id: String) throws -> (section: String, index: Int) {
        guard let sectionID = try sectionOf(id),
              let index = sections[sectionID]?.items.firstIndex(where: { $0.id == id }) else {
            throw BatchError(reason: .unknownItem(id))
        }
        return (sectionID, index)
    }

    private mutating func loadOrder() throws {
        if !orderLoaded {
            let ids = try source.sectionOrder()
            orderBefore = ids
            sectionOrder = ids
            orderLoaded = true
        }
    }

    /// The section after `id` in the current order.
    private mutating func sectionID(after id: String) throws -> String? {
        if orderLoaded {
            guard let position = sectionOrder.firstIndex(of: id), position + 1 < sectionOrder.count else { return nil }
            return sectionOrder[position + 1]
        }
        // The order is the source's: positions still hold.
        guard let position = originals[id]?.position else { return nil }
        if let next = originals.first(where: { $0.value.position == position + 1 }) {
            return deleted.contains(next.key) ? nil : next.key
        }
        guard let next = try source.section(at: position + 1) else { return nil }
        remember(next, at: position + 1)
        return next.id
    }

    // MARK: Values

    /// Checks an item's id and values as the model requires.
    static func check(_ item: Item) throws {
        guard !item.id.isEmpty else { throw BatchError(reason: .invalidField("id", detail: "expected a non-empty string")) }
        if let error = item.content.fieldErrors.first { throw BatchError(error) }
        if let size = item.size, !size.isValidNaturalSize {
            throw BatchError(reason: .invalidField("size", detail: "expected two numbers from 0 to \(Int(Size.maximumLength))"))
        }
    }

    /// `item` with `fields` applied; a field its kind does not have is an error.
    static func updated(_ item: Item, with fields: ItemFields) throws -> Item {
        var item = item
        for (field, value) in fields.orderedContent {
            do throws(ItemFieldError) { try item.content.set(field, to: value) } catch { throw BatchError(error) }
        }
        if let size = fields.size { item.size = size }
        try check(item)
        return item
    }
}
