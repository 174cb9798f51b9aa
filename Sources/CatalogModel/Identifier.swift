/// The one rule for when two ids (or catalogue names) are the same: when Swift's `==` says so,
/// that is, when they are canonically equivalent Unicode (`"é"` as one scalar or as `"e"` and a
/// combining accent).
///
/// SQLite compares text byte by byte, so the store keeps every id and name in one canonical form,
/// Unicode Normalization Form C, and puts every id it is given into that form before it writes
/// or looks up anything: then equal bytes and equal strings agree, a second id that is
/// canonically equivalent to a stored one is refused as a duplicate, and every lookup finds the id
/// whichever form the caller typed. The normalization is the standard library's own, the same
/// that `==`, `Set` and `Dictionary` use.
public enum Identifier {
    /// `id` in Normalization Form C; `id` itself (no copy) when it already is, which every ASCII id is.
    @inlinable
    public static func canonical(_ id: String) -> String {
        if id.utf8.allSatisfy({ $0 < 0x80 }) { return id }
        let normalized = id._nfcCodeUnits
        return normalized.elementsEqual(id.utf8) ? id : String(decoding: normalized, as: UTF8.self)
    }

    /// Whether `id` is in the canonical form that ``canonical(_:)`` gives.
    @inlinable
    public static func isCanonical(_ id: String) -> Bool {
        id.utf8.allSatisfy({ $0 < 0x80 }) || id._nfcCodeUnits.elementsEqual(id.utf8)
    }
}

extension Catalog {
    /// The catalogue with its name and every section and item id in canonical form
    /// (``Identifier``); itself, unchanged, when they all are already.
    public func canonicalized() -> Catalog {
        guard !(Identifier.isCanonical(name) && sections.allSatisfy({ section in
            Identifier.isCanonical(section.id) && section.items.allSatisfy { Identifier.isCanonical($0.id) }
        })) else { return self }
        var catalog = self
        catalog.name = Identifier.canonical(name)
        for s in catalog.sections.indices {
            catalog.sections[s].id = Identifier.canonical(catalog.sections[s].id)
            for i in catalog.sections[s].items.indices {
                catalog.sections[s].items[i].id = Identifier.canonical(catalog.sections[s].items[i].id)
            }
        }
        return catalog
    }
}

extension Batch {
    /// The batch with every id it names or inserts in canonical form (``Identifier``).
    public func canonicalized() -> Batch {
        func item(_ item: Item) -> Item {
            var item = item
            item.id = Identifier.canonical(item.id)
            return item
        }
        func section(_ section: Section) -> Section {
            var section = section
            section.id = Identifier.canonical(section.id)
            section.items = section.items.map(item)
            return section
        }
        let id = Identifier.canonical
        var batch = self
        batch.operations = operations.map { operation in
            switch operation {
            case .insertItem(let s, let index, let new): .insertItem(section: id(s), index: index, item: item(new))
            case .deleteItem(let i): .deleteItem(id: id(i))
            case .updateItem(let i, let fields): .updateItem(id: id(i), fields: fields)
            case .moveItem(let i, let s, let index, let policy): .moveItem(id: id(i), toSection: id(s), index: index, policy: policy)
            case .insertSection(let index, let new): .insertSection(index: index, section: section(new))
            case .deleteSection(let s): .deleteSection(id: id(s))
            case .moveSection(let s, let index): .moveSection(id: id(s), index: index)
            case .updateSection(let s, let fields): .updateSection(id: id(s), fields: fields)
            }
        }
        return batch
    }
}
