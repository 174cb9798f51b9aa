extension CatalogEditor {
    /// The sections whose items or fields the edit changed, or that it inserted (not deleted ones).
    public var changedSections: [String] {
        sections.keys.filter { id in
            guard let original = originals[id]?.section else { return true }
            return original != sections[id]
        }.sorted()
    }

    /// Whether the edit changes nothing at all.
    public var isEmpty: Bool {
        changedSections.isEmpty && deleted.isEmpty && order == orderBefore
    }

    /// The catalogue after the edit, given the whole catalogue before it (`base`, which the
    /// source read), with its revision raised by one.
    public func result(from base: Catalog) -> Catalog {
        var byID: [String: Section] = [:]
        for section in base.sections { byID[section.id] = section }
        for (id, section) in sections { byID[id] = section }
        let ids = order ?? base.sections.map(\.id)
        return Catalog(name: base.name, revision: base.revision + 1, sections: ids.compactMap { byID[$0] })
    }

    /// Two partial catalogues — every section the edit read, before and after — whose diff is
    /// the edit's changeset once their section indices are mapped to the whole catalogue's.
    ///
    /// With a section order (section operations), they hold every section, those the edit did
    /// not read as empty stand-ins that are the same on both sides; then `positions` is `nil`.
    /// Otherwise they hold the sections the edit read, in catalogue order, and `positions` gives
    /// each one's position in the whole catalogue (unchanged by the edit).
    public func partialSnapshots(name: String) -> (before: Catalog, after: Catalog, positions: [Int]?) {
        if let orderBefore, let order {
            func standIn(_ id: String) -> Section { Section(id: id, kind: .icons) }
            let before = orderBefore.map { originals[$0]?.section ?? standIn($0) }
            let after = order.map { sections[$0] ?? standIn($0) }
            return (Catalog(name: name, revision: revision, sections: before),
                    Catalog(name: name, revision: revision + 1, sections: after), nil)
        }
        let read = originals.values.sorted { $0.position < $1.position }
        return (Catalog(name: name, revision: revision, sections: read.map(\.section)),
                Catalog(name: name, revision: revision + 1, sections: read.map { sections[$0.section.id]! }),
                read.map(\.position))
    }
}
