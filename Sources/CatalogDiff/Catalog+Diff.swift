import CatalogModel

extension Catalog {
    /// Section ids and item ids in display order: what the diff and the simulator compare.
    public var shape: SnapshotShape<String, String> {
        SnapshotShape(sections: sections.map(\.id), items: sections.map { section in
            // Each id read in place, without copying its item.
            section.items.withUnsafeBufferPointer { items in
                Array(unsafeUninitializedCapacity: items.count) { ids, count in
                    for i in items.indices { (ids.baseAddress! + i).initialize(to: items[i].id) }
                    count = items.count
                }
            }
        })
    }

    /// The ids of sections and items present in both catalogues whose content differs (for a
    /// section: kind, title or capacity; for an item: everything but its id and position).
    ///
    /// The diff does not call this: it compares each item with its old version where its own id
    /// matching pairs them (``Changeset/init(from:to:workspace:)``). This is the plain statement
    /// of the rule, which the tests hold the diff to.
    public func contentChanges(since old: Catalog) -> (sections: Set<String>, items: Set<String>) {
        var oldItems: [String: Item] = [:]
        oldItems.reserveCapacity(old.itemCount)
        for section in old.sections {
            for item in section.items { oldItems[item.id] = item }
        }
        var itemIDs = Set<String>()
        for section in sections {
            for item in section.items {
                if let previous = oldItems[item.id], !previous.hasSameContent(as: item) { itemIDs.insert(item.id) }
            }
        }
        return (sectionContentChanges(since: old), itemIDs)
    }

    /// The ids of sections present in both catalogues whose kind, title or capacity differ.
    func sectionContentChanges(since old: Catalog) -> Set<String> {
        var oldSections: [String: Int] = [:]
        oldSections.reserveCapacity(old.sections.count)
        for (index, section) in old.sections.enumerated() { oldSections[section.id] = index }
        var changed = Set<String>()
        for section in sections {
            guard let index = oldSections[section.id] else { continue }
            let previous = old.sections[index]
            if previous.kind != section.kind || previous.title != section.title || previous.capacity != section.capacity {
                changed.insert(section.id)
            }
        }
        return changed
    }
}

extension Changeset {
    /// The staged changeset from catalogue `a` to catalogue `b`, with their revisions; scratch
    /// memory from `workspace`, or from a shared one when there is none (see ``DiffWorkspace``).
    ///
    /// - Throws: ``DuplicateIDError`` when either catalogue repeats an id.
    public init(from a: Catalog, to b: Catalog, workspace: DiffWorkspace? = nil) throws(DuplicateIDError) {
        // Content is compared where the diff's matching pairs an item with its old version, in
        // place (see `Item.sameContent`); ids are read in place too (see `InPlaceID`).
        self = try Catalog.withInPlaceShapes(a, b) { (shapeA, shapeB) throws(DuplicateIDError) in
            try StagedDiff.changeset(from: shapeA, to: shapeB, updatedSections: b.sectionContentChanges(since: a),
                                     itemsDiffer: { s, t, pairs, differing in
                                         a.sections[s].items.withUnsafeBufferPointer { x in
                                             b.sections[t].items.withUnsafeBufferPointer { y in
                                                 for (k, pair) in pairs.enumerated()
                                                 where !Item.sameContent(x.baseAddress! + pair.old, y.baseAddress! + pair.new) {
                                                     differing.append(k)
                                                 }
                                             }
                                         }
                                     }, workspace: workspace)
        }
        fromRevision = a.revision
        toRevision = b.revision
    }

    /// Every rule of docs/Changesets.md this changeset breaks as the way from `a` to `b`; empty when valid.
    public func violations(from a: Catalog, to b: Catalog) -> [BatchUpdateSimulator.Violation] {
        let changes = b.contentChanges(since: a)
        return BatchUpdateSimulator.violations(of: self, from: a.shape, to: b.shape,
                                               updatedSections: changes.sections, updatedItems: changes.items)
    }
}
