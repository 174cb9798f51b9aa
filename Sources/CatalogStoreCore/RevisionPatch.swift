import CatalogModel
import Foundation

/// How to rebuild the previous revision of a catalogue from the next one: the journal's payload.
///
/// It holds only what differs — the previous versions of sections whose content, items or
/// presence changed, and the previous section order when that changed — so a move between two
/// shelves journals two shelves, not the catalogue.
package struct RevisionPatch: Codable, Equatable {
    /// The previous revision's section ids in order; nil when it is the same as the next one's.
    var sectionOrder: [String]?
    /// Previous versions of the sections that differ, including those the next revision removed.
    var sections: [StoredSection]
    /// Sections whose fields did not change but whose items did: only their previous item ids,
    /// in order (the items themselves are in the next revision, or in `items`). This keeps the
    /// journal of a move between two shelves to two lists of ids.
    var itemOrders: [ItemOrder]?
    /// Previous versions of items the next revision deleted or changed.
    var items: [StoredItem]?
    /// Items that only moved, with where each was: the journal of a quick move between shelves
    /// (see `CatalogStore.quickMove(_:catalog:in:)`). Undone last to first, before
    /// the rest of the patch.
    var itemMoves: [ItemMove]?

    package struct ItemMove: Codable, Equatable {
        package var item: String
        package var section: String
        package var index: Int

        package init(item: String, section: String, index: Int) {
            (self.item, self.section, self.index) = (item, section, index)
        }
    }

    /// The sections whose items changed, when that is all this patch undoes (no section
    /// added, removed, reordered or changed, no quick moves): then the next revision differs from
    /// the previous one in those sections' items alone. Nil otherwise.
    package var sectionsWithChangedItemsOnly: [String]? {
        guard sectionOrder == nil, sections.isEmpty, itemMoves?.isEmpty ?? true else { return nil }
        return itemOrders?.map(\.section) ?? []
    }

    /// A patch of moves only.
    package init(itemMoves: [ItemMove]) {
        sectionOrder = nil
        sections = []
        itemOrders = nil
        items = nil
        self.itemMoves = itemMoves
    }

    struct ItemOrder: Codable, Equatable {
        var section: String
        var items: [String]
    }

    /// The patch that rebuilds `old` from `new`.
    package init(from new: Catalog, to old: Catalog) {
        var newSections: [String: Section] = [:]
        for section in new.sections { newSections[section.id] = section }
        sections = old.sections.filter { newSections[$0.id] != $0 }.map(StoredSection.init)
        let oldOrder = old.sections.map(\.id)
        sectionOrder = oldOrder == new.sections.map(\.id) ? nil : oldOrder
    }

    /// The patch that undoes an edit: deleted sections and sections whose fields changed as they
    /// were; for the other edited sections, their previous item ids; the previous versions of
    /// items deleted or changed; and the order before, when it changed.
    package init<Source: CatalogSource>(undoing edit: CatalogEditor<Source>, changed: [String]) {
        var previous: [StoredSection] = []
        var orders: [ItemOrder] = []
        var items: [StoredItem] = []
        var current: [String: Item] = [:]
        for (_, section) in edit.sections {
            for item in section.items { current[item.id] = item }
        }
        for id in changed {
            guard let original = edit.originals[id]?.section else { continue }   // inserted: not in the previous revision
            let now = edit.sections[id]!
            if original.kind == now.kind, original.title == now.title, original.capacity == now.capacity {
                orders.append(ItemOrder(section: id, items: original.items.map(\.id)))
                for item in original.items where current[item.id].map({ !$0.hasSameContent(as: item) }) ?? true {
                    items.append(StoredItem(item))
                }
            } else {
                previous.append(StoredSection(original))
            }
        }
        for id in edit.deleted.sorted() { previous.append(StoredSection(edit.originals[id]!.section)) }
        sections = previous
        itemOrders = orders.isEmpty ? nil : orders
        self.items = items.isEmpty ? nil : items
        sectionOrder = edit.order != edit.orderBefore ? edit.orderBefore : nil
    }

    /// The patch as JSON. Patches of moves (id lists only) are written by hand — `JSONEncoder`
    /// cost as much as the rest of a move; patches with whole sections or items go through it.
    package func encoded() throws -> String {
        guard sections.isEmpty, items == nil else {
            return String(decoding: try JSONEncoder().encode(self), as: UTF8.self)
        }
        var out = "{\"sections\":[]"
        out.reserveCapacity(128)  // a quick move's patch fits: one allocation, no regrowth
        if let sectionOrder {
            out += ",\"sectionOrder\":"
            Self.write(sectionOrder, to: &out)
        }
        if let itemMoves {
            out += ",\"itemMoves\":"
            Self.write(itemMoves, to: &out) { move, out in
                out += "{\"item\":"
                Self.write(move.item, to: &out)
                out += ",\"section\":"
                Self.write(move.section, to: &out)
                out += ",\"index\":\(move.index)}"
            }
        }
        if let itemOrders {
            out += ",\"itemOrders\":"
            Self.write(itemOrders, to: &out) { order, out in
                out += "{\"section\":"
                Self.write(order.section, to: &out)
                out += ",\"items\":"
                Self.write(order.items, to: &out)
                out += "}"
            }
        }
        out += "}"
        return out
    }

    /// A JSON array of `elements`, each written by `element`.
    private static func write<Element>(_ elements: [Element], to out: inout String,
                                       _ element: (Element, inout String) -> Void) {
        out += "["
        for (index, value) in elements.enumerated() {
            if index > 0 { out += "," }
            element(value, &out)
        }
        out += "]"
    }

    private static func write(_ strings: [String], to out: inout String) {
        write(strings, to: &out) { string, out in write(string, to: &out) }
    }

    private static func write(_ string: String, to out: inout String) {
        appendJSONString(string, to: &out)
    }

    /// The patch `encoded()` wrote. Patches of ids only — sections reordered, items moved,
    /// shelves' item orders: what moves journal — are read by hand, in one pass over the bytes
    /// as `encoded()` writes them (``written(_:)``; `JSONDecoder` was a third of a change feed's
    /// time); the others, and anything unexpected (an entry an older version wrote through
    /// `JSONEncoder`), through `Codable`.
    package static func decoded(_ text: String) throws -> RevisionPatch {
        var text = text
        return try text.withUTF8 { try decoded(UnsafeRawBufferPointer($0)) }
    }

    /// ``decoded(_:)`` from the patch's UTF-8 bytes, as the journal's rows hold them.
    package static func decoded(_ bytes: UnsafeRawBufferPointer) throws -> RevisionPatch {
        if let patch = written(bytes) { return patch }
        return try JSONDecoder().decode(RevisionPatch.self, from: Data(bytes))
    }
}

/// A section as the journal stores it: the model's fields in plain Codable form.
struct StoredSection: Codable, Equatable {
    var id: String
    var kind: String
    var title: String?
    var capacity: Int?
    var items: [StoredItem]

    init(_ section: Section) {
        id = section.id
        kind = section.kind.rawValue
        title = section.title
        capacity = section.capacity
        items = section.items.map(StoredItem.init)
    }

    func section() throws -> Section {
        guard let kind = SectionKind(rawValue: kind) else { throw StoreError.database("the journal holds an unknown section kind \(kind)") }
        return Section(id: id, kind: kind, title: title, capacity: capacity, items: try items.map { try $0.item() })
    }
}

/// An item as the journal stores it: its id, kind, content fields under their own names
/// (``ItemField``) and its size as `[width, height]`. Read back into an item only when a revision
/// is rewound or replayed, so a damaged entry is reported then.
struct StoredItem: Codable, Equatable {
    var id: String
    var kind: String
    var content: [ItemField: ItemFieldValue]
    var size: [Double]?

    init(_ item: Item) {
        id = item.id
        kind = item.kind.rawValue
        content = [:]
        for field in ItemField.content(of: item.kind) { content[field] = item.content[field] }
        size = item.size.map { [$0.width, $0.height] }
    }

    func item() throws -> Item {
        guard let itemKind = ItemKind(rawValue: kind) else { throw StoreError.database("the journal holds an unknown item kind \(kind)") }
        let itemContent: ItemContent
        do {
            itemContent = try ItemContent(kind: itemKind) { content[$0] }
        } catch {
            throw StoreError.database("the journal holds an incomplete \(kind) \(id): \(error)")
        }
        let itemSize = size.flatMap { $0.count == 2 ? Size(width: $0[0], height: $0[1]) : nil }
        return Item(id: id, content: itemContent, size: itemSize)
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        id = try container.decode(String.self, forKey: Key("id"))
        kind = try container.decode(String.self, forKey: Key("kind"))
        size = try container.decodeIfPresent([Double].self, forKey: Key("size"))
        content = [:]
        for field in ItemColumns.content {
            let key = Key(field.rawValue)
            switch field.representation {
            case .count: content[field] = try container.decodeIfPresent(Int.self, forKey: key).map(ItemFieldValue.count)
            case .text: content[field] = try container.decodeIfPresent(String.self, forKey: key).map(ItemFieldValue.text)
            }
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(id, forKey: Key("id"))
        try container.encode(kind, forKey: Key("kind"))
        for field in ItemColumns.content {
            switch content[field] {
            case .text(let text)?: try container.encode(text, forKey: Key(field.rawValue))
            case .count(let count)?: try container.encode(count, forKey: Key(field.rawValue))
            case nil: break
            }
        }
        try container.encodeIfPresent(size, forKey: Key("size"))
    }
}
