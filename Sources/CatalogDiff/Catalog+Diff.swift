import CatalogModel

extension Catalog {
    /// Section ids and item ids in display order: what the diff and the simulator compare.
    public var shape: SnapshotShape<String, String> {
        SnapshotShape(sections: sections.map(\.id), items: sections.map { $0.items.map(\.id) })
    }

    /// The ids of sections and items present in both catalogues whose content differs (for a
    /// section: kind, title or capacity; for an item: everything but its id and position).
    public func contentChanges(since old: Catalog) -> (sections: Set<String>, items: Set<String>) {
        var oldSections: [String: Section] = [:]
        var oldItems: [String: Item] = [:]
        oldItems.reserveCapacity(old.itemCount)
        for section in old.sections {
            oldSections[section.id] = section
            for item in section.items { oldItems[item.id] = item }
        }
        var sectionIDs = Set<String>()
        var itemIDs = Set<String>()
        for section in sections {
            if let previous = oldSections[section.id],
               previous.kind != section.kind || previous.title != section.title || previous.capacity != section.capacity {
                sectionIDs.insert(section.id)
            }
            for item in section.items {
                if let previous = oldItems[item.id], !previous.hasSameContent(as: item) { itemIDs.insert(item.id) }
            }
        }
        return (sectionIDs, itemIDs)
    }
}

extension Changeset {
    /// The staged changeset from catalogue `a` to catalogue `b`, with their revisions; scratch
    /// memory from `workspace`, or from a shared one when there is none (see ``DiffWorkspace``).
    ///
    /// - Throws: ``DuplicateIDError`` when either catalogue repeats an id.
    public init(from a: Catalog, to b: Catalog, workspace: DiffWorkspace? = nil) throws(DuplicateIDError) {
        let changes = b.contentChanges(since: a)
        self = try StagedDiff.changeset(from: a.shape, to: b.shape, updatedSections: changes.sections, updatedItems: changes.items,
                                        workspace: workspace)
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
